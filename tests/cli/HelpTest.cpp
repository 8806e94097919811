// `graphopt COMMAND --help` for every command: usage, every option with its default, an example;
// the options the help lists are exactly the ones the parser accepts. The descriptions are read
// in-process (graphopt_cli); a few calls of the real binary check that it prints them.
#include <gtest/gtest.h>

#include <map>
#include <regex>
#include <fstream>
#include <sstream>

#include "Args.h"
#include "Commands.h"
#include "Docs.h"
#include "GraphoptCli.h"
#include "placement/regal/RegalEngine.h"
#include "tuning/LearnedTuners.h"

using namespace graphopt::cli;
using graphopt::test_support::runGraphopt;

namespace {

// What main registers before it lists the commands.
std::vector<CommandSpec> everySpec() {
    graphopt::registerRegalEngine();
    graphopt::tuning::registerLearnedTuners();
    std::vector<CommandSpec> out;
    for (const auto& c : commands()) {
        if (c.spec.name == "runs") {
            for (const auto& sub : runsSubcommands()) out.push_back(sub);
            continue;
        }
        out.push_back(c.spec);
    }
    return out;
}

std::string helpOf(const CommandSpec& spec) {
    std::ostringstream os;
    spec.printHelp(os);
    return os.str();
}

// The options of a help text's "options:" section: name -> its line.
std::map<std::string, std::string> listedOptions(const std::string& help) {
    std::map<std::string, std::string> out;
    const size_t start = help.find("\noptions:\n");
    if (start == std::string::npos) return out;
    std::istringstream in(help.substr(start + 10));
    std::string line;
    static const std::regex option(R"(^  --([a-z0-9-]+))");
    while (std::getline(in, line) && !line.empty()) {
        std::smatch m;
        if (std::regex_search(line, m, option)) out[m[1]] = line;
    }
    return out;
}

}  // namespace

TEST(Help, EveryCommandHasUsageOptionsWithDefaultsAndAnExample) {
    for (const auto& spec : everySpec()) {
        SCOPED_TRACE(spec.name);
        const std::string help = helpOf(spec);
        EXPECT_EQ(help.rfind("usage: graphopt " + spec.name, 0), 0u) << help;
        EXPECT_NE(help.find("\nexample"), std::string::npos) << help;
        EXPECT_NE(help.find("exit status"), std::string::npos);
        const auto listed = listedOptions(help);
        for (const auto& o : spec.options) {
            ASSERT_TRUE(listed.count(o.name)) << "--" << o.name << " missing from the help";
            const std::string& line = listed.at(o.name);
            if (!o.defaultValue.empty() || !o.defaultText.empty())
                EXPECT_NE(line.find("[default: " + (o.defaultText.empty() ? o.defaultValue : o.defaultText) + "]"),
                          std::string::npos)
                    << line;
        }
    }
}

TEST(Help, ListsExactlyTheOptionsTheParserAccepts) {
    for (const auto& spec : everySpec()) {
        SCOPED_TRACE(spec.name);
        const auto listed = listedOptions(helpOf(spec));
        EXPECT_EQ(listed.size(), spec.options.size());
        for (const auto& [name, line] : listed) {
            const OptionSpec* o = spec.find(name);
            ASSERT_NE(o, nullptr) << "the help lists --" << name << ", which the parser does not know";
            // Accepted as written in the help: a switch alone, a valued option with a value.
            std::vector<std::string> argv = {"--" + name};
            if (!o->isSwitch()) argv.push_back(o->choices.empty() ? "1" : o->choices.front());
            EXPECT_NO_THROW(Args(argv, spec)) << line;
            if (!o->isSwitch()) EXPECT_THROW(Args({"--" + name}, spec), UsageError) << "a value is required: " << line;
        }
        try {
            Args({"--not-an-option"}, spec);
            ADD_FAILURE() << "an option the help does not list was accepted";
        } catch (const UsageError& e) {
            EXPECT_NE(std::string(e.what()).find("unknown option '--not-an-option'"), std::string::npos) << e.what();
        }
    }
}

TEST(Help, TheProgramPrintsTheDescriptions) {
    std::map<std::string, std::string> helps;
    for (const char* c : {"place", "tune", "train-policy", "eval-policy"}) {
        const auto viaFlag = runGraphopt(std::string(c) + " --help");
        EXPECT_EQ(viaFlag.status, 0) << c;
        EXPECT_EQ(runGraphopt(std::string("help ") + c).out, viaFlag.out) << c;
        EXPECT_EQ(viaFlag.out.rfind(std::string("usage: graphopt ") + c, 0), 0u) << viaFlag.out;
        helps[c] = viaFlag.out;
    }
    const auto sub = runGraphopt("runs compare --help");
    EXPECT_EQ(sub.out.rfind("usage: graphopt runs compare", 0), 0u) << sub.out;
    // Engines and tuners from graphopt_nn are in the lists (registered in main).
    EXPECT_NE(helps["place"].find("  regal: "), std::string::npos);
    EXPECT_NE(helps["tune"].find("  release: "), std::string::npos);
    const auto bad = runGraphopt("place --not-an-option");
    EXPECT_EQ(bad.status, 2);
    EXPECT_NE(bad.err.find("unknown option '--not-an-option' (see graphopt place --help)"), std::string::npos) << bad.err;
}

TEST(Help, UnknownCommandAndBareCallAreUsageErrors) {
    EXPECT_EQ(runGraphopt("frobnicate").status, 2);
    const auto bare = runGraphopt("");
    EXPECT_EQ(bare.status, 2);
    EXPECT_NE(bare.err.find("commands:"), std::string::npos);
    const auto help = runGraphopt("--help");
    EXPECT_EQ(help.status, 0);
    const auto version = runGraphopt("--version");
    EXPECT_EQ(version.status, 0);
    EXPECT_EQ(version.out.rfind("graphopt ", 0), 0u) << version.out;
    for (const auto& spec : everySpec())
        if (spec.name.rfind("runs ", 0) != 0) EXPECT_NE(help.out.find("  " + spec.name + " "), std::string::npos) << spec.name;
}

TEST(Help, TheReadmesEngineListIsTheProgramsOwn) {
    std::ifstream in(GRAPHOPT_SOURCE_DIR "/README.md");
    const std::string readme((std::istreambuf_iterator<char>(in)), {});
    const std::string begin = "<!-- engines:begin -->\n", end = "<!-- engines:end -->";
    const size_t b = readme.find(begin), e = readme.find(end);
    ASSERT_NE(b, std::string::npos);
    ASSERT_NE(e, std::string::npos);
    const auto r = runGraphopt("engines --markdown");
    ASSERT_EQ(r.status, 0);
    EXPECT_EQ(readme.substr(b + begin.size(), e - b - begin.size()), r.out)
        << "regenerate the README's list: build/app/graphopt engines --markdown";
}

// The man page and the bash completion come from the same descriptions: every command and every
// option appears in both, the choices of an option are offered after it, and the script is valid
// bash that completes what a user would type.
TEST(Help, ManPageAndCompletionCoverEveryCommandAndOption) {
    const auto specs = everySpec();
    std::ostringstream man, completion;
    writeManPage(man, commands(), "1.2.3");
    writeBashCompletion(completion, commands());
    const std::string m = man.str(), c = completion.str();
    EXPECT_NE(m.find(".TH GRAPHOPT 1 \"\" \"graphopt 1.2.3\""), std::string::npos);
    auto roffDashes = [](std::string s) {
        std::string out;
        for (char ch : s) out += ch == '-' ? std::string("\\-") : std::string(1, ch);
        return out;
    };
    for (const auto& spec : specs) {
        EXPECT_NE(m.find(".SS \"graphopt " + roffDashes(spec.name)), std::string::npos) << spec.name;
        const std::string leaf = spec.name.substr(spec.name.rfind(' ') + 1);
        EXPECT_NE(c.find(leaf + ")"), std::string::npos) << spec.name;
        for (const auto& o : spec.options) {
            EXPECT_NE(m.find("\\fB\\-\\-" + roffDashes(o.name) + "\\fR"), std::string::npos) << spec.name << " --" << o.name;
            EXPECT_NE(c.find("--" + o.name), std::string::npos) << spec.name << " --" << o.name;
            for (const auto& choice : o.choices) EXPECT_NE(c.find(choice), std::string::npos) << choice;
        }
    }
    // The script itself, in bash: it loads, then completes a command, a tuner and a runs subcommand.
    const std::string dir = ::testing::TempDir();
    std::ofstream(dir + "/graphopt-completion.bash") << c;
    std::ofstream(dir + "/graphopt-completion-check.sh")
        << "source '" << dir << "/graphopt-completion.bash' || exit 3\n"
        << "COMP_WORDS=(graphopt pl); COMP_CWORD=1; _graphopt; echo \"[${COMPREPLY[*]}]\"\n"
        << "COMP_WORDS=(graphopt tune m.onnx --tuner re); COMP_CWORD=4; _graphopt; echo \"[${COMPREPLY[*]}]\"\n"
        << "COMP_WORDS=(graphopt runs l); COMP_CWORD=2; _graphopt; echo \"[${COMPREPLY[*]}]\"\n";
    FILE* p = popen(("bash '" + dir + "/graphopt-completion-check.sh' 2>&1").c_str(), "r");
    ASSERT_NE(p, nullptr);
    std::string out;
    char buf[512];
    while (fgets(buf, sizeof buf, p)) out += buf;
    EXPECT_EQ(pclose(p), 0) << out;
    EXPECT_EQ(out, "[place]\n[release]\n[list]\n");
}
