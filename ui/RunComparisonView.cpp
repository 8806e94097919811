#include "RunComparisonView.h"

#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLegend>
#include <QLineSeries>
#include <QLocale>
#include <QPushButton>
#include <QSplitter>
#include <QTableWidget>
#include <QValueAxis>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <limits>

#include "DeviceColors.h"
#include "run/Units.h"
#include "store/RunStore.h"

namespace graphopt::ui {

namespace {

QString figureText(units::Kind kind, double v) { return QString::fromStdString(units::format(kind, v)); }

// What the compared runs' costs measure: one objective's kind, or Plain when they differ.
units::Kind costKind(const RunComparison& c) {
    if (c.runs.empty()) return units::Kind::Plain;
    const std::string& objective = c.runs.front().run.objective;
    for (const auto& s : c.runs)
        if (s.run.objective != objective) return units::Kind::Plain;
    return units::objectiveKind(objective);
}

const QColor kInfeasibleColor(170, 20, 20);

}  // namespace

RunComparisonView::RunComparisonView(QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    auto* top = new QHBoxLayout;
    top->addWidget(new QLabel(tr("Align curves by")));
    axisChoice_ = new QComboBox;
    axisChoice_->setObjectName("compareAxis");
    axisChoice_->addItem(tr("evaluations / measurements"));
    axisChoice_->addItem(tr("wall-clock time"));
    top->addWidget(axisChoice_);
    top->addStretch();
    differences_ = new QLabel;
    differences_->setObjectName("compareDifferences");
    differences_->setWordWrap(true);
    top->addWidget(differences_, 1);
    showOnGraph_ = new QPushButton(tr("Show on graph"));
    showOnGraph_->setObjectName("showDifferencesOnGraph");
    showOnGraph_->setToolTip(tr("Open the graph and ring the nodes placed differently"));
    showOnGraph_->setEnabled(false);
    top->addWidget(showOnGraph_);
    layout->addLayout(top);

    auto* split = new QSplitter(Qt::Horizontal);
    split_ = split;
    chartView_ = new QChartView(new QChart);
    chartView_->setObjectName("compareChart");
    chartView_->setRenderHint(QPainter::Antialiasing);
    chartView_->chart()->legend()->setAlignment(Qt::AlignBottom);
    chartView_->chart()->setMargins(QMargins(4, 4, 4, 4));
    chartView_->setMinimumHeight(200);
    x_ = new QValueAxis;
    y_ = new QValueAxis;
    y_->setTitleText(tr("best cost so far"));
    y_->setLabelFormat("%.4g");
    chartView_->chart()->addAxis(x_, Qt::AlignBottom);
    chartView_->chart()->addAxis(y_, Qt::AlignLeft);
    split->addWidget(chartView_);
    figures_ = new QTableWidget;
    figures_->setObjectName("compareFigures");
    figures_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    figures_->verticalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    // The table as wide as its columns; the chart takes the rest.
    split->addWidget(figures_);
    split->setStretchFactor(0, 1);
    split->setStretchFactor(1, 0);
    layout->addWidget(split, 1);

    connect(axisChoice_, &QComboBox::currentIndexChanged, this,
            [this](int i) { setXAxis(i == 1 ? XAxis::WallClock : XAxis::Evaluations); });
    connect(showOnGraph_, &QPushButton::clicked, this,
            [this] { emit showNodesRequested(graphPath_, comparison_.nodesPlacedDifferently); });
    clear();
}

void RunComparisonView::clear() {
    comparison_ = {};
    curves_.clear();
    graphPath_.clear();
    figures_->clear();
    figures_->setRowCount(0);
    figures_->setColumnCount(0);
    differences_->setText(tr("Select two or more runs and press Compare."));
    showOnGraph_->setEnabled(false);
    redrawCurves();
}

int RunComparisonView::curveCount() const { return static_cast<int>(chartView_->chart()->series().size()); }

void RunComparisonView::setXAxis(XAxis axis) {
    xAxis_ = axis;
    const int index = axis == XAxis::WallClock ? 1 : 0;
    if (axisChoice_->currentIndex() != index) axisChoice_->setCurrentIndex(index);
    redrawCurves();
}

void RunComparisonView::showRuns(RunStore& store, const std::vector<int64_t>& runIds) {
    comparison_ = compareRuns(store, runIds);
    const auto& runs = comparison_.runs;
    const QLocale loc;

    curves_.clear();
    for (const auto& s : runs) {
        Curve c;
        c.label = tr("run %1 %2").arg(s.run.id).arg(QString::fromStdString(s.run.engine));
        if (s.run.seed) c.label += tr(" seed %1").arg(s.run.seed);
        double best = std::numeric_limits<double>::infinity();
        for (const auto& e : store.events(s.run.id)) {
            if (std::isnan(e.bestCost)) continue;
            best = std::min(best, e.bestCost);
            c.evaluations.push_back(static_cast<double>(e.evaluations));
            c.seconds.push_back(e.elapsedS);
            c.best.push_back(best);
        }
        curves_.push_back(std::move(c));
    }
    redrawCurves();

    // Figures: one row each, one column per run; the best of a score is bold on green, and every
    // run after the first shows its difference to the first.
    figures_->clear();
    figures_->setColumnCount(static_cast<int>(runs.size()));
    QStringList headers;
    for (const auto& s : runs)
        headers << tr("run %1\n%2").arg(s.run.id).arg(QString::fromStdString(s.run.engine));
    figures_->setHorizontalHeaderLabels(headers);
    // Rank: the feasible runs first (by best cost), then the infeasible ones.
    std::vector<size_t> rankOf(runs.size(), 0);
    for (size_t r = 0; r < comparison_.ranking.size(); ++r) rankOf[comparison_.ranking[r]] = r + 1;
    std::vector<std::pair<QString, std::vector<QString>>> textRows = {
        {tr("rank"), {}}, {tr("graph"), {}}, {tr("objective"), {}}, {tr("seed"), {}}, {tr("status"), {}}};
    for (size_t i = 0; i < runs.size(); ++i) {
        const auto& s = runs[i];
        const bool feasible = i >= comparison_.feasible.size() || comparison_.feasible[i];
        textRows[0].second.push_back(feasible ? QString::number(rankOf[i]) : tr("%1 (infeasible)").arg(rankOf[i]));
        textRows[1].second.push_back(QString::fromStdString(s.run.graphName.empty() ? "-" : s.run.graphName));
        textRows[2].second.push_back(QString::fromStdString(s.run.objective.empty() ? "-" : s.run.objective));
        textRows[3].second.push_back(QString::number(s.run.seed));
        textRows[4].second.push_back(QString::fromStdString(runStatusName(s.run.status)));
    }
    figures_->setRowCount(static_cast<int>(textRows.size() + comparison_.figures.size()));
    QStringList rowNames;
    int row = 0;
    for (const auto& [name, cells] : textRows) {
        rowNames << name;
        for (size_t i = 0; i < cells.size(); ++i) {
            auto* item = new QTableWidgetItem(cells[i]);
            if (i < comparison_.feasible.size() && !comparison_.feasible[i] && row == 0) item->setForeground(kInfeasibleColor);
            figures_->setItem(row, int(i), item);
        }
        ++row;
    }
    const units::Kind costs = costKind(comparison_);
    for (const auto& f : comparison_.figures) {
        rowNames << QString::fromStdString(f.name);
        const bool isCost = f.name == "best cost";
        const units::Kind kind = isCost ? costs : units::figureKind(f.name);
        // The first run's figure, the base of every other run's change (0 when it has none).
        const double first = f.values.empty() ? 0.0 : f.values.front().value_or(0.0);
        const bool firstFeasible = comparison_.feasible.empty() || comparison_.feasible.front();
        for (size_t i = 0; i < f.values.size(); ++i) {
            const bool feasible = i >= comparison_.feasible.size() || comparison_.feasible[i];
            if (isCost && !feasible) {
                // An infeasible run's cost is a penalty, not a figure to read or compare.
                auto* item = new QTableWidgetItem(QString::fromStdString(comparison_.infeasibleText(i)));
                item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
                item->setForeground(kInfeasibleColor);
                item->setToolTip(tr("This placement does not fit the devices' memory: it ranks behind every feasible run "
                                    "(stored cost with penalty: %1)")
                                     .arg(f.values[i] ? loc.toString(*f.values[i], 'g', 6) : QStringLiteral("-")));
                figures_->setItem(row, int(i), item);
                continue;
            }
            QString text = f.values[i] ? figureText(kind, *f.values[i]) : QStringLiteral("-");
            if (i > 0 && f.values[i] && first != 0 && f.better != 0 && !(isCost && !firstFeasible))
                text += QStringLiteral(" (%1%2 %)")
                            .arg(*f.values[i] >= first ? "+" : "")
                            .arg(loc.toString((*f.values[i] / first - 1.0) * 100.0, 'f', 1));
            auto* item = new QTableWidgetItem(text);
            item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
            if (f.values[i]) item->setData(Qt::UserRole, *f.values[i]);  // the stored value, in SI units
            if (f.values[i] && kind != units::Kind::Plain) item->setToolTip(loc.toString(*f.values[i], 'g', 10));
            if (f.best && *f.best == i) {
                QFont bold = item->font();
                bold.setBold(true);
                item->setFont(bold);
                item->setBackground(QColor(200, 235, 200));
                item->setToolTip(tr("best of the compared runs (%1 is better)").arg(f.better < 0 ? tr("lower") : tr("higher")));
            }
            figures_->setItem(row, int(i), item);
        }
        ++row;
    }
    figures_->setVerticalHeaderLabels(rowNames);
    figures_->resizeColumnsToContents();
    // The table as wide as its columns (at most 60 % of the width); the chart takes the rest.
    int tableWidth = figures_->verticalHeader()->sizeHint().width() + 2 * figures_->frameWidth() + 4;
    for (int c = 0; c < figures_->columnCount(); ++c) tableWidth += figures_->columnWidth(c);
    const int total = std::max(split_->width(), 600);
    tableWidth = std::min(tableWidth, total * 3 / 5);
    split_->setSizes({total - tableWidth, tableWidth});

    // What differs in the answers.
    QStringList notes;
    for (const auto& w : comparison_.warnings) notes << QString::fromStdString(w);
    graphPath_.clear();
    if (comparison_.placementsComparable) {
        notes.prepend(tr("<b>%1 of %2 nodes</b> placed differently")
                          .arg(comparison_.nodesPlacedDifferently.size())
                          .arg(comparison_.placedNodes));
        if (runs.front().run.graphId)
            if (auto g = store.graph(*runs.front().run.graphId)) graphPath_ = QString::fromStdString(g->sourcePath);
    }
    if (comparison_.tuningComparable) {
        QStringList knobs;
        for (const auto& k : comparison_.knobsThatDiffer) knobs << QString::fromStdString(k);
        notes.prepend(tr("task %1: <b>knobs that differ</b> in the best kernels: %2")
                          .arg(QString::fromStdString(comparison_.task).toHtmlEscaped(),
                               knobs.isEmpty() ? tr("none") : knobs.join(", ")));
    }
    differences_->setText(notes.join("<br>"));
    showOnGraph_->setEnabled(comparison_.placementsComparable && !graphPath_.isEmpty() &&
                             !comparison_.nodesPlacedDifferently.empty());
}

void RunComparisonView::redrawCurves() {
    QChart* chart = chartView_->chart();
    chart->removeAllSeries();
    QValueAxis* x = x_;
    QValueAxis* y = y_;
    // Costs and wall-clock time in units people read: the y axis in the objective's unit (ms, MiB)
    // when every run has the same objective, the x axis in s or ms.
    const units::Kind kind = costKind(comparison_);
    double rawMaxX = 0, rawMaxY = 0;
    for (const Curve& c : curves_) {
        for (double v : xAxis_ == XAxis::WallClock ? c.seconds : c.evaluations) rawMaxX = std::max(rawMaxX, v);
        for (double v : c.best) rawMaxY = std::max(rawMaxY, std::abs(v));
    }
    const units::AxisUnit yUnit = units::axisUnit(kind, rawMaxY);
    const units::AxisUnit xUnit = xAxis_ == XAxis::WallClock ? units::axisUnit(units::Kind::Time, rawMaxX) : units::AxisUnit{};
    const std::string objective = comparison_.runs.empty() ? std::string() : comparison_.runs.front().run.objective;
    QString yTitle = tr("best cost so far");
    if (kind != units::Kind::Plain) {
        const QString what = objective == "memory" ? tr("best peak memory so far")
                             : objective == "throughput" ? tr("best time per sample so far")
                                                         : tr("best running time so far");
        yTitle = QString("%1 (%2)").arg(what, QString::fromStdString(yUnit.unit));
    }
    y->setTitleText(yTitle);
    x->setTitleText(xAxis_ == XAxis::WallClock ? tr("wall-clock time (%1)").arg(QString::fromStdString(xUnit.unit))
                                               : tr("evaluations"));
    x->setLabelFormat(xAxis_ == XAxis::WallClock ? "%.3g" : "%.0f");
    double maxX = xAxis_ == XAxis::WallClock ? 1e-9 : 1, minY = std::numeric_limits<double>::max(),
           maxY = std::numeric_limits<double>::lowest();
    for (size_t i = 0; i < curves_.size(); ++i) {
        const Curve& raw = curves_[i];
        if (raw.best.empty()) continue;
        Curve c = raw;
        for (double& v : c.best) v /= yUnit.divisor;
        for (double& v : c.seconds) v /= xUnit.divisor;
        auto* s = new QLineSeries;
        // An infeasible run's costs carry the penalty: dashed, and said so in the legend.
        const bool infeasible = i < comparison_.feasible.size() && !comparison_.feasible[i];
        s->setName(infeasible ? tr("%1 (infeasible)").arg(c.label) : c.label);
        s->setPen(QPen(deviceColor(static_cast<int>(i)), 2, infeasible ? Qt::DashLine : Qt::SolidLine));
        const auto& xs = xAxis_ == XAxis::WallClock ? c.seconds : c.evaluations;
        for (size_t k = 0; k < c.best.size(); ++k) {
            // Steps: the best so far holds until the next improvement.
            if (k > 0) s->append(xs[k], c.best[k - 1]);
            s->append(xs[k], c.best[k]);
            maxX = std::max(maxX, xs[k]);
            minY = std::min(minY, c.best[k]);
            maxY = std::max(maxY, c.best[k]);
        }
        chart->addSeries(s);
        s->attachAxis(x);
        s->attachAxis(y);
    }
    if (minY > maxY) {  // nothing drawn: an empty frame whose whole-number ticks do not repeat
        minY = 0, maxY = 1;
        if (xAxis_ == XAxis::Evaluations) maxX = 100;
    }
    const double pad = std::max(1e-12, (maxY - minY) * 0.08);
    x->setRange(0, maxX);
    if (xAxis_ == XAxis::Evaluations) x->applyNiceNumbers();
    y->setRange(minY >= 0 ? std::max(0.0, minY - pad) : minY - pad, maxY + pad);
    y->applyNiceNumbers();  // ticks on round values (0.4, 0.6, ...), not on the padded range's ends
    chart->legend()->setVisible(!curves_.empty());
}

}  // namespace graphopt::ui
