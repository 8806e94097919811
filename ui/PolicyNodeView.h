// What REGAL's policy learned, for one node: the Beta(alpha, beta) distribution the policy chose
// for each of the node's keys (its mutant keys are drawn from these instead of Uniform(0,1)),
// drawn beside the uniform density, and the node's crossover probability (how often a child
// takes its keys from the elite parent; BRKGA uses 0.7 for every node). The probabilities the
// network gave each choice are in the tooltip.
#pragma once

#include <QWidget>

#include <memory>

#include "graph/Graph.h"
#include "placement/regal/RegalEngine.h"

class QChartView;
class QLabel;
class QValueAxis;

namespace graphopt::ui {

class PolicyNodeView : public QWidget {
    Q_OBJECT
public:
    explicit PolicyNodeView(QWidget* parent = nullptr);

    // The policy's proposal for `graph` (explainPolicy), or null to clear. `deviceNames` label
    // the device keys.
    void setExplanation(std::shared_ptr<const Graph> graph, std::shared_ptr<const regal::PolicyExplanation> explanation,
                        const QStringList& deviceNames);
    void setMessage(const QString& text);  // instead of a node (no policy, an error)
    void showNode(int node);
    int shownNode() const { return node_; }
    int curveCount() const;  // Beta curves drawn, plus the uniform reference
    QString crossoverText() const;

    // Beta(alpha, beta) density at x in (0, 1).
    static double betaDensity(double x, double alpha, double beta);

private:
    std::shared_ptr<const Graph> graph_;
    std::shared_ptr<const regal::PolicyExplanation> explanation_;
    QStringList deviceNames_;
    int node_ = -1;
    QChartView* chart_ = nullptr;
    QValueAxis* x_ = nullptr;
    QValueAxis* y_ = nullptr;
    QLabel* label_ = nullptr;
};

}  // namespace graphopt::ui
