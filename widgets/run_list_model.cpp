#include "widgets/run_list_model.h"

#include <QColor>

#include <algorithm>

#include "widgets/run_comparison.h"
#include "widgets/run_store.h"

namespace widgets {

RunListModel::RunListModel(RunStore* store, QObject* parent)
    : QAbstractListModel(parent), m_store(store) {
  for (const auto& r : m_store->runs()) {
    m_ids.push_front(r.id);   // newest first
    m_names.insert(r.id, r.name);
  }
  connect(m_store, &RunStore::runAdded, this, &RunListModel::onRunAdded);
  connect(m_store, &RunStore::runAboutToBeRemoved, this, &RunListModel::onRunAboutToBeRemoved);
  connect(m_store, &RunStore::runRemoved, this, &RunListModel::onRunRemoved);
  connect(m_store, &RunStore::runChanged, this, &RunListModel::onRunChanged);
  connect(m_store, &RunStore::currentRunChanged, this, [this](int) {
    if (!m_ids.isEmpty())
      Q_EMIT dataChanged(index(0), index(static_cast<int>(m_ids.size()) - 1),
                         {IsCurrentRole, Qt::FontRole});
  });
}

int RunListModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(m_ids.size());
}

int RunListModel::runIdAt(int row) const {
  return (row >= 0 && row < m_ids.size()) ? m_ids[row] : 0;
}

QModelIndex RunListModel::indexForRun(int id) const {
  const auto row = m_ids.indexOf(id);
  return row < 0 ? QModelIndex() : index(static_cast<int>(row));
}

QVariant RunListModel::data(const QModelIndex& idx, int role) const {
  if (!idx.isValid() || idx.row() >= m_ids.size()) return {};
  const Run* r = m_store->run(m_ids[idx.row()]);
  if (!r) return {};
  switch (role) {
    case Qt::DisplayRole: {
      // "#12 colab-cnn · fashion-mnist · b128 (lr 10 · sgd) — finished": runs that share a name
      // are told apart by what differs between them.
      std::vector<const Run*> namesakes;
      for (int id : m_ids)
        if (const Run* o = m_store->run(id); o && o->name == r->name) namesakes.push_back(o);
      QString name = QStringLiteral("#%1 %2").arg(r->id).arg(r->name);
      if (namesakes.size() > 1) {
        const QStringList differs = distinguishingNames(namesakes);
        const auto at = std::find(namesakes.begin(), namesakes.end(), r) - namesakes.begin();
        if (!differs.value(at).isEmpty()) name += QStringLiteral(" (%1)").arg(differs.value(at));
      }
      return tr("%1 — %2").arg(name, runStatusText(r->status));
    }
    case Qt::EditRole: return r->name;
    case Qt::DecorationRole:
    case ColorRole: return r->color;
    case Qt::CheckStateRole: return r->visible ? Qt::Checked : Qt::Unchecked;
    case Qt::ToolTipRole: {
      const auto& c = r->config;
      QString tip = tr("<b>%1</b><br>%2 on %3, batch %4, %5 epoch(s), seed %6<br>status: %7")
                        .arg(r->name.toHtmlEscaped(), QString::fromStdString(c.modelId).toHtmlEscaped(),
                             QString::fromStdString(c.datasetId).toHtmlEscaped())
                        .arg(c.batch)
                        .arg(c.epochs)
                        .arg(c.seed)
                        .arg(runStatusText(r->status));
      if (!r->statusMessage.isEmpty()) tip += "<br>" + r->statusMessage.toHtmlEscaped();
      if (!r->presetId.isEmpty()) tip += tr("<br>preset: %1").arg(r->presetId.toHtmlEscaped());
      return tip;
    }
    case Qt::FontRole: {
      if (r->id != m_store->currentRunId()) return {};
      QFont f;
      f.setBold(true);
      return f;
    }
    case RunIdRole: return r->id;
    case StatusRole: return runStatusText(r->status);
    case StatusMessageRole: return r->statusMessage;
    case IsCurrentRole: return r->id == m_store->currentRunId();
    default: return {};
  }
}

bool RunListModel::setData(const QModelIndex& idx, const QVariant& value, int role) {
  if (!idx.isValid() || idx.row() >= m_ids.size()) return false;
  const int id = m_ids[idx.row()];
  if (role == Qt::CheckStateRole) {
    m_store->setVisible(id, value.toInt() == Qt::Checked);
    return true;
  }
  if (role == Qt::EditRole) {
    const QString name = value.toString().trimmed();
    if (name.isEmpty()) return false;
    m_store->setName(id, name);
    return true;
  }
  return false;
}

Qt::ItemFlags RunListModel::flags(const QModelIndex& idx) const {
  if (!idx.isValid()) return Qt::NoItemFlags;
  return Qt::ItemIsEnabled | Qt::ItemIsSelectable | Qt::ItemIsUserCheckable | Qt::ItemIsEditable;
}

QHash<int, QByteArray> RunListModel::roleNames() const {
  auto names = QAbstractListModel::roleNames();
  names[RunIdRole] = "runId";
  names[StatusRole] = "status";
  names[StatusMessageRole] = "statusMessage";
  names[ColorRole] = "color";
  names[IsCurrentRole] = "isCurrent";
  return names;
}

void RunListModel::onRunAdded(int id) {
  const int stored = m_store->indexOf(id);
  if (stored < 0) return;
  const int row = static_cast<int>(m_ids.size()) - stored;   // newest first: the store's last is row 0
  beginInsertRows({}, row, row);
  m_ids.insert(row, id);
  if (const Run* r = m_store->run(id)) m_names.insert(id, r->name);
  endInsertRows();
  // Its namesakes now show what sets them apart.
  if (m_ids.size() > 1) Q_EMIT dataChanged(index(0), index(static_cast<int>(m_ids.size()) - 1), {Qt::DisplayRole});
}

void RunListModel::onRunAboutToBeRemoved(int id) {
  const auto row = static_cast<int>(m_ids.indexOf(id));
  if (row < 0) return;
  beginRemoveRows({}, row, row);
  m_ids.removeAt(row);
  m_names.remove(id);
  m_removing = true;
}

void RunListModel::onRunRemoved(int) {
  if (!m_removing) return;
  m_removing = false;
  endRemoveRows();
}

void RunListModel::onRunChanged(int id) {
  const Run* r = m_store->run(id);
  const QModelIndex idx = indexForRun(id);
  if (!r || !idx.isValid()) return;
  // A rename can make two runs namesakes (or stop them being): then every row's text may change.
  const auto named = m_names.find(id);
  if (named != m_names.end() && *named != r->name) {
    *named = r->name;
    Q_EMIT dataChanged(index(0), index(static_cast<int>(m_ids.size()) - 1));
    return;
  }
  m_names.insert(id, r->name);
  Q_EMIT dataChanged(idx, idx);
}

}  // namespace widgets
