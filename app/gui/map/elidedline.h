// SPDX-License-Identifier: MIT
#pragma once

#include <QLabel>

namespace ctxscope::gui {

// A label one line high whatever it says, never wider than its layout gives it: the text is
// cut short with "…" when it does not fit (the owner puts the whole of it in the tooltip).
// Its text coming, going or growing never moves what is around it, so a click that changes it
// never moves the map under the mouse.
class ElidedLine : public QLabel {
public:
    explicit ElidedLine(QWidget* parent = nullptr);

    void setFullText(const QString& text);
    const QString& fullText() const { return m_full; }

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

protected:
    void resizeEvent(QResizeEvent* event) override;
    void changeEvent(QEvent* event) override;

private:
    void fit();

    QString m_full; // whole; text() is what fits
};

} // namespace ctxscope::gui
