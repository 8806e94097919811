#include "PolicyNodeView.h"

#include <QChart>
#include <QChartView>
#include <QLabel>
#include <QLegend>
#include <QLineSeries>
#include <QPen>
#include <QValueAxis>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

#include "DeviceColors.h"

namespace graphopt::ui {

double PolicyNodeView::betaDensity(double x, double a, double b) {
    if (x <= 0 || x >= 1) return 0;
    const double logB = std::lgamma(a) + std::lgamma(b) - std::lgamma(a + b);
    return std::exp((a - 1) * std::log(x) + (b - 1) * std::log1p(-x) - logB);
}

PolicyNodeView::PolicyNodeView(QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    label_ = new QLabel;
    label_->setObjectName("policyNodeLabel");
    label_->setWordWrap(true);
    layout->addWidget(label_);
    chart_ = new QChartView(new QChart);
    chart_->setObjectName("policyNodeChart");
    chart_->setRenderHint(QPainter::Antialiasing);
    chart_->chart()->legend()->setAlignment(Qt::AlignRight);
    chart_->chart()->setMargins(QMargins(2, 2, 2, 2));
    // Axes live as long as the chart; curves come and go (deleting axes while the chart's
    // graphics items still refer to them is unsafe).
    x_ = new QValueAxis;
    y_ = new QValueAxis;
    x_->setRange(0, 1);
    x_->setTitleText(tr("key value"));
    y_->setTitleText(tr("density"));
    chart_->chart()->addAxis(x_, Qt::AlignBottom);
    chart_->chart()->addAxis(y_, Qt::AlignLeft);
    layout->addWidget(chart_, 1);
    setMessage(tr("Select a node to see the key distributions REGAL's policy chose for it."));
}

void PolicyNodeView::setExplanation(std::shared_ptr<const Graph> graph,
                                    std::shared_ptr<const regal::PolicyExplanation> explanation,
                                    const QStringList& deviceNames) {
    graph_ = std::move(graph);
    explanation_ = std::move(explanation);
    deviceNames_ = deviceNames;
    if (node_ >= 0) showNode(node_);
}

void PolicyNodeView::setMessage(const QString& text) {
    chart_->chart()->removeAllSeries();
    label_->setText(text);
}

int PolicyNodeView::curveCount() const { return static_cast<int>(chart_->chart()->series().size()); }

QString PolicyNodeView::crossoverText() const { return label_->text(); }

void PolicyNodeView::showNode(int node) {
    node_ = node;
    if (!graph_ || !explanation_) {
        setMessage(tr("No policy for these devices and objective (engine regal, see the run panel)."));
        return;
    }
    const auto& ex = *explanation_;
    if (node < 0 || node >= ex.probabilities.n || static_cast<size_t>(node) >= graph_->nodeCount()) {
        setMessage(tr("Select a node to see the key distributions REGAL's policy chose for it."));
        return;
    }
    setMessage(QString());
    QChart* chart = chart_->chart();
    QValueAxis* x = x_;
    QValueAxis* y = y_;
    const int K = ex.keysPerNode;
    const auto& choices = regal::betaChoices();
    const size_t nChoices = choices.size();
    double top = 1.2;
    QString tips;
    for (int k = 0; k < K; ++k) {
        const int choice = ex.action.beta[static_cast<size_t>(node * K + k)];
        const regal::BetaChoice b = choices[static_cast<size_t>(choice)];
        auto* s = new QLineSeries;
        const QString keyName = k < K - 1 ? tr("device key %1").arg(deviceNames_.value(k, QString::number(k)))
                                          : tr("priority key");
        s->setName(tr("%1: Beta(%2, %3)").arg(keyName).arg(b.alpha).arg(b.beta));
        QPen pen(k < K - 1 ? deviceColor(k) : QColor(90, 90, 90));
        pen.setWidthF(2.2);
        s->setPen(pen);
        for (int i = 1; i < 200; ++i) {
            const double xv = i / 200.0;
            const double d = std::min(betaDensity(xv, b.alpha, b.beta), 8.0);
            s->append(xv, d);
            top = std::max(top, d);
        }
        chart->addSeries(s);
        s->attachAxis(x);
        s->attachAxis(y);
        // The network's probability of each choice for this key, for the tooltip.
        QStringList probs;
        for (size_t c = 0; c < nChoices; ++c)
            probs << QStringLiteral("Beta(%1,%2) %3")
                         .arg(choices[c].alpha)
                         .arg(choices[c].beta)
                         .arg(ex.probabilities.betaProbs[(static_cast<size_t>(node) * K + k) * nChoices + c], 0, 'f', 2);
        tips += keyName + ": " + probs.join(", ") + "\n";
    }
    auto* uniform = new QLineSeries;
    uniform->setName(tr("Uniform(0,1): BRKGA"));
    QPen dashed(QColor(30, 30, 30));
    dashed.setStyle(Qt::DashLine);
    dashed.setWidthF(1.5);
    uniform->setPen(dashed);
    uniform->append(0, 1);
    uniform->append(1, 1);
    chart->addSeries(uniform);
    uniform->attachAxis(x);
    uniform->attachAxis(y);
    y->setRange(0, std::min(8.0, top * 1.05));

    const auto& cross = regal::crossoverChoices();
    const int c = ex.action.cross[static_cast<size_t>(node)];
    QStringList crossProbs;
    for (size_t i = 0; i < cross.size(); ++i)
        crossProbs << QStringLiteral("%1: %2").arg(cross[i]).arg(ex.probabilities.crossProbs[static_cast<size_t>(node) * cross.size() + i], 0, 'f', 2);
    label_->setText(tr("<b>%1</b> (%2): crossover probability <b>%3</b> (uniform BRKGA: 0.7)")
                        .arg(QString::fromStdString(graph_->nodes()[static_cast<size_t>(node)].name).toHtmlEscaped(),
                             QString::fromStdString(graph_->nodes()[static_cast<size_t>(node)].op).toHtmlEscaped())
                        .arg(cross[static_cast<size_t>(c)]));
    chart_->setToolTip(tr("The network's probabilities:\n") + tips + tr("crossover: ") + crossProbs.join(", "));
}

}  // namespace graphopt::ui
