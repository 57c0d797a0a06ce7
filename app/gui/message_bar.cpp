#include "app/gui/message_bar.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QStyle>
#include <QToolButton>

namespace app::gui {

MessageBar::MessageBar(QWidget* parent) : QFrame(parent) {
  setObjectName("MessageBar");
  setFrameShape(QFrame::StyledPanel);
  auto* layout = new QHBoxLayout(this);
  layout->setContentsMargins(8, 4, 4, 4);
  m_icon = new QLabel(this);
  m_icon->setAlignment(Qt::AlignTop);
  m_text = new QLabel(this);
  m_text->setWordWrap(true);
  m_text->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_text->setTextFormat(Qt::RichText);
  m_close = new QToolButton(this);
  m_close->setAutoRaise(true);
  m_close->setIcon(style()->standardIcon(QStyle::SP_TitleBarCloseButton));
  m_close->setToolTip(tr("Dismiss"));
  layout->addWidget(m_icon, 0, Qt::AlignTop);
  layout->addWidget(m_text, 1);
  layout->addWidget(m_close, 0, Qt::AlignTop);
  connect(m_close, &QToolButton::clicked, this, &MessageBar::clearMessage);
  hide();
}

void MessageBar::showMessage(Level level, const QString& what, const QString& details) {
  m_level = level;
  m_what = what;
  m_details = details;
  QStyle::StandardPixmap pix = QStyle::SP_MessageBoxInformation;
  QString border = "#0072B2", background = "rgba(0,114,178,0.10)";  // Okabe–Ito blue
  if (level == Level::Warning) {
    pix = QStyle::SP_MessageBoxWarning;
    border = "#E69F00";
    background = "rgba(230,159,0,0.14)";
  } else if (level == Level::Error) {
    pix = QStyle::SP_MessageBoxCritical;
    border = "#D55E00";
    background = "rgba(213,94,0,0.12)";
  }
  setStyleSheet(QStringLiteral("#MessageBar { border: 1px solid %1; border-radius: 4px; background: %2; }").arg(border, background));
  m_icon->setPixmap(style()->standardIcon(pix).pixmap(20, 20));
  QString html = "<b>" + what.toHtmlEscaped() + "</b>";
  if (!details.isEmpty()) html += "<br>" + details.toHtmlEscaped().replace('\n', "<br>");
  m_text->setText(html);
  show();
}

void MessageBar::clearMessage() {
  m_what.clear();
  m_details.clear();
  m_text->clear();
  hide();
}

QString MessageBar::text() const { return m_details.isEmpty() ? m_what : m_what + "\n" + m_details; }

}  // namespace app::gui
