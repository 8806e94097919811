#include "graph/LoaderText.h"

namespace graphopt {

namespace {

// Length of the valid UTF-8 sequence starting at s[i], or 0 when it is not valid.
size_t utf8Length(const std::string& s, size_t i) {
    const auto byte = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
    const unsigned char c = byte(i);
    size_t n;
    uint32_t cp;
    if (c < 0x80) return 1;
    if ((c & 0xE0) == 0xC0) n = 2, cp = c & 0x1F;
    else if ((c & 0xF0) == 0xE0) n = 3, cp = c & 0x0F;
    else if ((c & 0xF8) == 0xF0) n = 4, cp = c & 0x07;
    else return 0;
    if (i + n > s.size()) return 0;
    for (size_t k = 1; k < n; ++k) {
        if ((byte(i + k) & 0xC0) != 0x80) return 0;
        cp = (cp << 6) | (byte(i + k) & 0x3F);
    }
    // Overlong forms, UTF-16 surrogates and values past U+10FFFF are not valid UTF-8.
    if ((n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) || cp > 0x10FFFF ||
        (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    return n;
}

}  // namespace

std::string printableText(const std::string& text, size_t maxBytes) {
    static const char* hex = "0123456789abcdef";
    std::string out;
    out.reserve(std::min(text.size(), maxBytes) + 8);
    for (size_t i = 0; i < text.size();) {
        if (out.size() >= maxBytes) {
            out += "...";
            break;
        }
        const unsigned char c = static_cast<unsigned char>(text[i]);
        const size_t n = utf8Length(text, i);
        if (n == 0 || c < 0x20 || c == 0x7F) {
            out += "\\x";
            out += hex[c >> 4];
            out += hex[c & 15];
            ++i;
        } else {
            out.append(text, i, n);
            i += n;
        }
    }
    return out;
}

void checkJsonNesting(const std::string& text, const std::string& path, int maxDepth) {
    int depth = 0;
    bool inString = false;
    for (size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (inString) {
            if (c == '\\') ++i;
            else if (c == '"') inString = false;
        } else if (c == '"') {
            inString = true;
        } else if (c == '[' || c == '{') {
            if (++depth > maxDepth)
                throw GraphError(path + ": JSON nested more than " + std::to_string(maxDepth) +
                                 " levels deep (at byte " + std::to_string(i) + ")");
        } else if (c == ']' || c == '}') {
            --depth;
        }
    }
}

std::string jsonErrorMessage(const std::exception& e) {
    std::string m = e.what();
    if (m.rfind("[json.exception.", 0) == 0)
        if (auto close = m.find("] "); close != std::string::npos) m = m.substr(close + 2);
    return m;
}

}  // namespace graphopt
