#pragma once
// The runs list (a dock in the app): one row per run, newest first, with its number and name
// (runs that share a name told apart by their differences), colour swatch (DecorationRole),
// status, and a checkbox that shows/hides the run on every chart.
#include <QAbstractListModel>
#include <QHash>
#include <QVector>

namespace widgets {

class RunStore;

class RunListModel : public QAbstractListModel {
  Q_OBJECT
public:
  enum Role {
    RunIdRole = Qt::UserRole + 1,   // int
    StatusRole,                     // QString: "finished", …
    StatusMessageRole,              // QString: why it failed / diverged
    ColorRole,                      // QColor
    IsCurrentRole,                  // bool
  };

  explicit RunListModel(RunStore* store, QObject* parent = nullptr);

  int rowCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  bool setData(const QModelIndex& index, const QVariant& value, int role) override;
  Qt::ItemFlags flags(const QModelIndex& index) const override;
  QHash<int, QByteArray> roleNames() const override;

  int runIdAt(int row) const;            // 0 when out of range
  QModelIndex indexForRun(int id) const;

private:
  void onRunAdded(int id);
  void onRunAboutToBeRemoved(int id);
  void onRunRemoved(int id);
  void onRunChanged(int id);

  RunStore* m_store;
  QVector<int> m_ids;                    // the store's order reversed: newest first
  QHash<int, QString> m_names;           // as last shown: a rename re-labels the namesakes
  bool m_removing = false;
};

}  // namespace widgets
