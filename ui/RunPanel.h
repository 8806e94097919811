// The run settings: engine, objective, devices, budget, seed, threads and BRKGA's parameters,
// with Start and Cancel and a progress bar. It only builds a RunSpec; MainWindow runs it.
#pragma once

#include <QWidget>

#include "run/Run.h"

class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QGroupBox;

namespace graphopt::ui {

class RunPanel : public QWidget {
    Q_OBJECT
public:
    explicit RunPanel(QWidget* parent = nullptr);

    RunSpec spec() const;
    void setSpec(const RunSpec& spec);  // engine, objective, devices, budget, seed
    void setRunning(bool running);
    void setProgress(double fraction);
    void setStatus(const QString& text);

signals:
    void startRequested();
    void cancelRequested();

private:
    void updateEnabled();

    QComboBox* engine_ = nullptr;
    QComboBox* objective_ = nullptr;
    QComboBox* devices_ = nullptr;
    QSpinBox* budget_ = nullptr;
    QSpinBox* seed_ = nullptr;
    QSpinBox* threads_ = nullptr;
    QGroupBox* brkga_ = nullptr;
    QSpinBox* population_ = nullptr;
    QDoubleSpinBox* elite_ = nullptr;
    QDoubleSpinBox* mutant_ = nullptr;
    QDoubleSpinBox* rho_ = nullptr;
    QComboBox* weights_ = nullptr;
    QPushButton* start_ = nullptr;
    QPushButton* cancel_ = nullptr;
    QProgressBar* progress_ = nullptr;
    QLabel* status_ = nullptr;
    bool running_ = false;
};

}  // namespace graphopt::ui
