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
#include "store/RunStore.h"

namespace graphopt::ui {

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
    std::vector<std::pair<QString, std::vector<QString>>> textRows = {
        {tr("graph"), {}}, {tr("objective"), {}}, {tr("seed"), {}}, {tr("status"), {}}};
    for (const auto& s : runs) {
        textRows[0].second.push_back(QString::fromStdString(s.run.graphName.empty() ? "-" : s.run.graphName));
        textRows[1].second.push_back(QString::fromStdString(s.run.objective.empty() ? "-" : s.run.objective));
        textRows[2].second.push_back(QString::number(s.run.seed));
        textRows[3].second.push_back(QString::fromStdString(runStatusName(s.run.status)));
    }
    figures_->setRowCount(static_cast<int>(textRows.size() + comparison_.figures.size()));
    QStringList rowNames;
    int row = 0;
    for (const auto& [name, cells] : textRows) {
        rowNames << name;
        for (size_t i = 0; i < cells.size(); ++i) figures_->setItem(row, int(i), new QTableWidgetItem(cells[i]));
        ++row;
    }
    for (const auto& f : comparison_.figures) {
        rowNames << QString::fromStdString(f.name);
        const std::optional<double> first = f.values.empty() ? std::nullopt : f.values.front();
        for (size_t i = 0; i < f.values.size(); ++i) {
            QString text = f.values[i] ? loc.toString(*f.values[i], 'g', 6) : QStringLiteral("-");
            if (i > 0 && f.values[i] && first && *first != 0 && f.better != 0)
                text += QStringLiteral(" (%1%2 %)")
                            .arg(*f.values[i] >= *first ? "+" : "")
                            .arg(loc.toString((*f.values[i] / *first - 1.0) * 100.0, 'f', 1));
            auto* item = new QTableWidgetItem(text);
            item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
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
    x->setTitleText(xAxis_ == XAxis::WallClock ? tr("seconds") : tr("evaluations"));
    x->setLabelFormat(xAxis_ == XAxis::WallClock ? "%.3g" : "%.0f");
    double maxX = 1, minY = std::numeric_limits<double>::max(), maxY = std::numeric_limits<double>::lowest();
    for (size_t i = 0; i < curves_.size(); ++i) {
        const Curve& c = curves_[i];
        if (c.best.empty()) continue;
        auto* s = new QLineSeries;
        s->setName(c.label);
        s->setColor(deviceColor(static_cast<int>(i)));
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
    if (minY > maxY) minY = 0, maxY = 1;
    const double pad = std::max(1e-12, (maxY - minY) * 0.08);
    x->setRange(0, maxX);
    if (xAxis_ == XAxis::Evaluations) x->applyNiceNumbers();
    y->setRange(minY - pad, maxY + pad);
    chart->legend()->setVisible(!curves_.empty());
}

}  // namespace graphopt::ui
