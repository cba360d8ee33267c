import Lanes
import LanesLists
import StocksKit

/// The key of a row's chart: the series and the chart width (a resize asks for new charts).
struct RowChartKey: Hashable, Sendable {
    var id: String
    var width: Int
    init(id: String, width: Int) {
        self.id = id
        self.width = width
    }
}

/// A reusable list row: holds the chart its binding delivered. Lives on the main queue with the list model.
@MainActor
final class RowCell {
    private(set) var chart: ChartRow?
    private(set) var binding: ContentBinding<RowChartKey, ChartRow>!

    init(loader: ContentLoader<RowChartKey, ChartRow>, onChange: @escaping () -> Void) {
        binding = loader.binding(placeholder: { [weak self] _ in
            self?.chart = nil
        }, handler: { [weak self] _, result in
            self?.chart = try? result.get()
            onChange()
        })
    }

    /// The chart if the cell shows `key` and it arrived.
    func chart(for key: RowChartKey) -> ChartRow? {
        binding.key == key && binding.isLoaded ? chart : nil
    }
}
