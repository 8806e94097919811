// Step mode's picture of BRKGA (papers/REGAL.md): the current population's costs, best first, one
// point per individual, coloured by where it came from: the elite carried over, crossover offspring
// of an elite and a non-elite parent, fresh mutants (generation 0: the initial draw). Watching it
// step by step shows what the algorithm does: the elites hold the front, offspring crowd in
// behind them, mutants scatter at the back until one of them lands among the elite.
#pragma once

#include <QChartView>
#include <string>
#include <vector>

class QScatterSeries;
class QValueAxis;

namespace graphopt::ui {

class PopulationView : public QChartView {
    Q_OBJECT
public:
    explicit PopulationView(QWidget* parent = nullptr);

    // `costs` best first; `origins` one letter per individual ('i' initial, 'e' elite,
    // 'o' offspring, 'm' mutant, 's' a heuristic's solution seeded into generation 0: BrkgaOrigin). `objective` is "runtime" (s, shown in ms) or
    // "memory" (bytes, shown in MiB).
    void setPopulation(qint64 generation, const std::vector<double>& costs, const std::string& origins,
                       const QString& objective);
    void clear();
    qint64 generation() const { return generation_; }
    int pointCount() const;               // every individual shown
    int pointCount(char origin) const;    // those of one origin
    QString caption() const;              // what the chart's title says

private:
    QScatterSeries* seriesFor(char origin) const;

    QScatterSeries* initial_ = nullptr;
    QScatterSeries* elite_ = nullptr;
    QScatterSeries* offspring_ = nullptr;
    QScatterSeries* mutant_ = nullptr;
    QScatterSeries* seeded_ = nullptr;
    QValueAxis* x_ = nullptr;
    QValueAxis* y_ = nullptr;
    qint64 generation_ = -1;
};

}  // namespace graphopt::ui
