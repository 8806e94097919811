// One colour per device, shared by every view that shows a placement (graph nodes, Gantt bars,
// memory curves), so "orange" means the same device everywhere.
//
// The first eight are the Okabe-Ito palette (distinguishable with the common colour-vision
// deficiencies), reordered so that the first devices get the most distinct pairs and the
// low-contrast yellow comes late; black is replaced by grey so dark text stays readable on it.
// Beyond eight devices the palette repeats, darker, which stays distinct from the first round.
#pragma once

#include <QColor>
#include <array>

namespace graphopt::ui {

inline QColor deviceColor(int device) {
    static constexpr std::array<QRgb, 8> kOkabeIto = {
        0x0072B2,  // blue
        0xE69F00,  // orange
        0x009E73,  // bluish green
        0xCC79A7,  // reddish purple
        0x56B4E9,  // sky blue
        0xD55E00,  // vermillion
        0xF0E442,  // yellow
        0x999999,  // grey (instead of black)
    };
    if (device < 0) return QColor(200, 200, 200);  // unplaced
    const int n = static_cast<int>(kOkabeIto.size());
    QColor c = QColor::fromRgb(kOkabeIto[device % n]);
    for (int round = device / n; round > 0; --round) c = c.darker(140);
    return c;
}

// Black or white, whichever reads better on `fill`.
inline QColor contrastTextColor(const QColor& fill) {
    // Relative luminance (sRGB weights, no gamma: good enough to pick between two colours).
    const double y = 0.2126 * fill.redF() + 0.7152 * fill.greenF() + 0.0722 * fill.blueF();
    return y > 0.5 ? QColor(20, 20, 20) : QColor(255, 255, 255);
}

}  // namespace graphopt::ui
