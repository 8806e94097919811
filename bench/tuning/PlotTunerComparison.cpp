// plot_tuner_comparison OUT.png CSV [CSV...] [--title TEXT]
//
// Draws tuner_comparison's CSVs (one row per measurement: model, task, template, tuner, seed,
// measurement, clock_s, gflops, best_gflops) as one PNG: first the overall picture, the best kernel so far as a
// share of the best any tuner found on that task, averaged over tasks and seeds, against the
// run's clock; then one chart per task, the best GFLOP/s so far (mean over seeds) against the
// clock. One line per tuner, the same colour everywhere. Headless (offscreen platform).
#include <QApplication>
#include <QChart>
#include <QChartView>
#include <QFile>
#include <QGridLayout>
#include <QLabel>
#include <QLineSeries>
#include <QPixmap>
#include <QTextStream>
#include <QValueAxis>
#include <QVBoxLayout>
#include <QWidget>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <map>
#include <string>
#include <vector>

namespace {

struct Run {
    std::vector<double> clock, best;
    // Best so far at time t (0 before the first measurement, the final best after the last).
    double at(double t) const {
        auto it = std::upper_bound(clock.begin(), clock.end(), t);
        if (it == clock.begin()) return 0;
        return best[static_cast<size_t>(it - clock.begin()) - 1];
    }
    double end() const { return clock.empty() ? 0 : clock.back(); }
    double finalBest() const { return best.empty() ? 0 : best.back(); }
};

// task -> tuner -> seed -> run
using Data = std::map<std::string, std::map<std::string, std::map<std::string, Run>>>;

bool readCsv(const QString& path, Data& data, std::vector<std::string>& taskOrder, std::vector<std::string>& tunerOrder) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly | QIODevice::Text)) {
        std::cerr << "plot_tuner_comparison: cannot read " << path.toStdString() << "\n";
        return false;
    }
    QTextStream in(&f);
    const QStringList header = in.readLine().split(',');
    // The template (packed, nchw) keeps two templates' runs of one task apart (older CSVs have none).
    const int iTemplate = header.indexOf("template");
    const int iModel = header.indexOf("model"), iTask = header.indexOf("task"), iTuner = header.indexOf("tuner"),
              iSeed = header.indexOf("seed"), iClock = header.indexOf("clock_s"), iBest = header.indexOf("best_gflops");
    if (std::min({iModel, iTask, iTuner, iSeed, iClock, iBest}) < 0) {
        std::cerr << "plot_tuner_comparison: " << path.toStdString() << " is not a tuner_comparison CSV\n";
        return false;
    }
    while (!in.atEnd()) {
        const QStringList c = in.readLine().split(',');
        if (c.size() < header.size()) continue;
        QString label = c[iModel] + ":" + c[iTask];
        if (iTemplate >= 0 && c[iTemplate] != "packed") label += " (" + c[iTemplate] + ")";
        const std::string task = label.toStdString(), tuner = c[iTuner].toStdString();
        if (std::find(taskOrder.begin(), taskOrder.end(), task) == taskOrder.end()) taskOrder.push_back(task);
        if (std::find(tunerOrder.begin(), tunerOrder.end(), tuner) == tunerOrder.end()) tunerOrder.push_back(tuner);
        Run& r = data[task][tuner][c[iSeed].toStdString()];
        r.clock.push_back(c[iClock].toDouble());
        r.best.push_back(c[iBest].toDouble());
    }
    return true;
}

QColor tunerColour(const std::string& tuner) {
    static const std::map<std::string, QColor> colours = {
        {"random", QColor(150, 150, 150)}, {"autotvm", QColor(31, 119, 180)}, {"autotvm-as", QColor(44, 160, 44)},
        {"release", QColor(214, 39, 40)},  {"ga", QColor(148, 103, 189)},     {"grid", QColor(140, 86, 75)}};
    auto it = colours.find(tuner);
    return it != colours.end() ? it->second : QColor(255, 127, 14);
}

// One chart: for each tuner, the mean over `runs` of value(run, t) on a grid of t in [0, tMax].
QChartView* chart(const QString& title, const std::vector<std::string>& tuners,
                  const std::map<std::string, std::vector<std::pair<const Run*, double>>>& runs, double tMax,
                  const QString& yTitle, bool legend, QSize size) {
    auto* c = new QChart;
    c->setTitle(title);
    c->legend()->setVisible(legend);
    c->legend()->setAlignment(Qt::AlignBottom);
    c->setMargins(QMargins(4, 4, 4, 4));
    auto* x = new QValueAxis;
    auto* y = new QValueAxis;
    x->setTitleText("seconds (search + measurements)");
    y->setTitleText(yTitle);
    x->setLabelFormat("%.0f");
    c->addAxis(x, Qt::AlignBottom);
    c->addAxis(y, Qt::AlignLeft);
    double yMax = 0;
    constexpr int points = 240;
    for (const auto& tuner : tuners) {
        auto it = runs.find(tuner);
        if (it == runs.end() || it->second.empty()) continue;
        auto* s = new QLineSeries;
        s->setName(QString::fromStdString(tuner));
        QPen pen(tunerColour(tuner));
        pen.setWidthF(2.0);
        s->setPen(pen);
        for (int i = 0; i <= points; ++i) {
            const double t = tMax * i / points;
            double sum = 0;
            for (const auto& [run, scale] : it->second) sum += run->at(t) * scale;
            const double v = sum / static_cast<double>(it->second.size());
            yMax = std::max(yMax, v);
            s->append(t, v);
        }
        c->addSeries(s);
        s->attachAxis(x);
        s->attachAxis(y);
    }
    x->setRange(0, tMax);
    y->setRange(0, yMax > 0 ? yMax * 1.05 : 1);
    auto* v = new QChartView(c);
    v->setRenderHint(QPainter::Antialiasing);
    v->setFixedSize(size);
    return v;
}

}  // namespace

int main(int argc, char** argv) {
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    QStringList args = app.arguments().mid(1);
    QString title = "Tuners on real Halide measurements";
    const int ti = args.indexOf("--title");
    if (ti >= 0 && ti + 1 < args.size()) {
        title = args[ti + 1];
        args.remove(ti, 2);
    }
    if (args.size() < 2) {
        std::cerr << "usage: plot_tuner_comparison OUT.png CSV [CSV...] [--title TEXT]\n";
        return 2;
    }
    Data data;
    std::vector<std::string> tasks, tuners;
    for (int i = 1; i < args.size(); ++i)
        if (!readCsv(args[i], data, tasks, tuners)) return 1;
    if (tasks.empty()) {
        std::cerr << "plot_tuner_comparison: no rows\n";
        return 1;
    }

    // Overall: best / best any tuner found on the task, over tasks and seeds; the clock axis ends
    // at the median run length, so that the few long tasks do not squash the picture.
    std::map<std::string, std::vector<std::pair<const Run*, double>>> overall;
    std::vector<double> ends;
    for (const auto& task : tasks) {
        double bestAny = 0;
        for (const auto& [tuner, seeds] : data[task])
            for (const auto& [seed, run] : seeds) bestAny = std::max(bestAny, run.finalBest());
        if (bestAny <= 0) continue;
        for (const auto& [tuner, seeds] : data[task])
            for (const auto& [seed, run] : seeds) {
                overall[tuner].push_back({&run, 100.0 / bestAny});
                ends.push_back(run.end());
            }
    }
    std::sort(ends.begin(), ends.end());
    const double overallEnd = ends.empty() ? 1 : ends[ends.size() / 2];

    QWidget page;
    page.setStyleSheet("background: white;");
    auto* layout = new QVBoxLayout(&page);
    auto* heading = new QLabel(title);
    QFont hf = heading->font();
    hf.setPointSize(14);
    hf.setBold(true);
    heading->setFont(hf);
    layout->addWidget(heading);
    layout->addWidget(chart(QString("All %1 tasks: best so far, % of the best any tuner found (mean over tasks and seeds)")
                                .arg(tasks.size()),
                            tuners, overall, overallEnd, "% of best", true, QSize(1440, 420)));
    auto* grid = new QGridLayout;
    const int columns = 4;
    for (size_t i = 0; i < tasks.size(); ++i) {
        std::map<std::string, std::vector<std::pair<const Run*, double>>> runs;
        double tMax = 0;
        for (const auto& [tuner, seeds] : data[tasks[i]])
            for (const auto& [seed, run] : seeds) {
                runs[tuner].push_back({&run, 1.0});
                tMax = std::max(tMax, run.end());
            }
        grid->addWidget(chart(QString::fromStdString(tasks[i]), tuners, runs, tMax, "GFLOP/s", false, QSize(355, 250)),
                        static_cast<int>(i) / columns, static_cast<int>(i) % columns);
    }
    layout->addLayout(grid);
    page.adjustSize();
    page.show();
    app.processEvents();
    const QPixmap png = page.grab();
    if (!png.save(args[0])) {
        std::cerr << "plot_tuner_comparison: cannot write " << args[0].toStdString() << "\n";
        return 1;
    }
    std::cout << "wrote " << args[0].toStdString() << " (" << png.width() << "x" << png.height() << ")\n";
    return 0;
}
