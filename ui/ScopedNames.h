// Scoped node names on screen: `/model/layers.0/self_attn/q_proj/MatMul_6` shortened to a pixel
// width in the middle, by whole scopes, keeping the first scope and the op's own name
// (`/model/…/q_proj/MatMul_6`), where Qt's own middle elision would leave `/…6`. The graph's
// boxes and the nodes list both use it.
#pragma once

#include <QFontMetricsF>
#include <QString>
#include <QStyledItemDelegate>

namespace graphopt::ui {

// The longest elideScopedName() (core/graph/ScopeFolding.h) of `name` that fits `width` pixels.
QString elideScopedToWidth(const QString& name, const QFontMetricsF& fm, double width);

// For a view's name column: draws the name elided by scopes to the cell's width.
class ScopedNameDelegate : public QStyledItemDelegate {
public:
    using QStyledItemDelegate::QStyledItemDelegate;

protected:
    void initStyleOption(QStyleOptionViewItem* option, const QModelIndex& index) const override;
};

}  // namespace graphopt::ui
