#include "ScopedNames.h"

#include <QApplication>
#include <QStyle>

#include "graph/ScopeFolding.h"

namespace graphopt::ui {

QString elideScopedToWidth(const QString& name, const QFontMetricsF& fm, double width) {
    if (fm.horizontalAdvance(name) <= width) return name;
    const std::string full = name.toStdString();
    // Binary search on the character budget: the elided width grows with it.
    size_t lo = 1, hi = static_cast<size_t>(name.size());
    QString best = QString::fromStdString(elideScopedName(full, 1));
    while (lo <= hi) {
        const size_t mid = (lo + hi) / 2;
        const QString candidate = QString::fromStdString(elideScopedName(full, mid));
        if (fm.horizontalAdvance(candidate) <= width) {
            best = candidate;
            lo = mid + 1;
        } else {
            hi = mid - 1;
        }
    }
    return best;
}

void ScopedNameDelegate::initStyleOption(QStyleOptionViewItem* option, const QModelIndex& index) const {
    QStyledItemDelegate::initStyleOption(option, index);
    if (option->text.isEmpty()) return;
    const QStyle* style = option->widget ? option->widget->style() : QApplication::style();
    const int margin = style->pixelMetric(QStyle::PM_FocusFrameHMargin, nullptr, option->widget) + 1;
    option->text = elideScopedToWidth(option->text, QFontMetricsF(option->font), option->rect.width() - 2 * margin - 2);
    option->textElideMode = Qt::ElideNone;
}

}  // namespace graphopt::ui
