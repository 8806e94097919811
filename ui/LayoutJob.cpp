#include "LayoutJob.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>

#include "BackgroundJob.h"
#include "ChildProcess.h"
#include "graph/LayeredLayout.h"
#include "graph/Loaders.h"

namespace graphopt::ui {

namespace {

constexpr int kLayoutPollMs = 50;  // how often the worker looks at the cancel token while dot runs

// On the worker thread: `graphopt layout MODEL --json` in a child process, killed when the job is
// cancelled (returns an empty layout then, which nobody reads: a cancelled job's result is dropped
// or ignored).
GraphLayout layoutInChildProcess(const QString& cli, const QString& modelPath, bool horizontal, JobContext& ctx) {
    QStringList args{"layout", modelPath, "--json"};
    if (horizontal) args << "--horizontal";
    ChildOutcome r;
    try {
        r = runChild(cli, args, [&ctx] { return ctx.cancelled(); }, 0, kLayoutPollMs);
    } catch (const std::exception&) {
        throw std::runtime_error("could not start " + cli.toStdString() + " for the layout");
    }
    if (r.stopped) return {};
    const QByteArray& out = r.out;
    if (r.crashed || r.exitCode != 0)
        throw std::runtime_error(r.err.isEmpty() ? "the layout process stopped (exit code " + std::to_string(r.exitCode) + ")"
                                                 : r.err.toStdString());
    try {
        return GraphLayout::fromJson(nlohmann::json::parse(out.toStdString()));
    } catch (const std::exception& e) {
        throw std::runtime_error(std::string("unreadable layout: ") + e.what());
    }
}

}  // namespace

LayoutJob::LayoutJob(QObject* parent)
    : QObject(parent), fastJob_(new BackgroundJob(this)), job_(new BackgroundJob(this)) {
    connect(fastJob_, &BackgroundJob::finished, this, [this] {
        fastSeconds_ = fastJob_->elapsedSeconds();
        if (const auto* layout = fastJob_->resultAs<GraphLayout>(); layout && !layout->nodes.empty()) emit fastFinished(*layout);
        if (pendingDot_) {
            pendingDot_ = false;
            startDot(pendingPath_, pendingHorizontal_);
        }
    });
    connect(fastJob_, &BackgroundJob::failed, this, [this](const QString& message) {
        if (pendingDot_) {  // dot may still manage where the fast layout could not
            pendingDot_ = false;
            startDot(pendingPath_, pendingHorizontal_);
        } else {
            emit failed(message);
        }
    });
    connect(job_, &BackgroundJob::finished, this, [this] {
        if (const auto* layout = job_->resultAs<GraphLayout>()) emit finished(*layout);
    });
    connect(job_, &BackgroundJob::failed, this, &LayoutJob::failed);
}

LayoutJob::~LayoutJob() = default;  // the job cancels (kills the child) and waits

QString LayoutJob::cliPath() const {
    if (!cliPath_.isEmpty()) return cliPath_;
    if (const QByteArray env = qgetenv("GRAPHOPT_CLI"); !env.isEmpty()) return QString::fromLocal8Bit(env);
    return QDir(QCoreApplication::applicationDirPath()).absoluteFilePath("graphopt");
}

bool LayoutJob::isRunning() const { return fastJob_->isRunning() || job_->isRunning() || pendingDot_; }

bool LayoutJob::isDotRunning() const { return job_->isRunning() || pendingDot_; }

double LayoutJob::elapsedSeconds() const { return job_->elapsedSeconds(); }

void LayoutJob::start(const QString& modelPath, std::shared_ptr<const Graph> graph, bool horizontal, bool withDot) {
    if (job_->isRunning()) job_->abandon();  // a layout of the previous model: its child is killed
    pendingPath_ = modelPath;
    pendingHorizontal_ = horizontal;
    pendingDot_ = withDot;
    fastJob_->start([graph = std::move(graph), horizontal](JobContext& ctx) -> std::any {
        LayoutOptions opt;
        if (horizontal) opt.direction = LayoutOptions::Direction::LeftToRight;
        return layoutGraphFast(*graph, opt, [&ctx] { return ctx.cancelled(); });
    });
}

void LayoutJob::startDot(const QString& modelPath, bool horizontal) {
    const QString cli = cliPath();
    const bool child = QFileInfo(cli).isExecutable();
    job_->start([cli, child, modelPath, horizontal](JobContext& ctx) -> std::any {
        if (child) return layoutInChildProcess(cli, modelPath, horizontal, ctx);
        LayoutOptions opt;
        if (horizontal) opt.direction = LayoutOptions::Direction::LeftToRight;
        return layoutGraph(loadGraph(modelPath.toStdString()), opt);
    });
}

void LayoutJob::cancel() {
    if (!isRunning()) return;
    pendingDot_ = false;
    if (fastJob_->isRunning()) fastJob_->abandon();
    if (job_->isRunning()) job_->abandon();  // the worker kills dot; what it returns is dropped
    emit cancelled();
}

}  // namespace graphopt::ui
