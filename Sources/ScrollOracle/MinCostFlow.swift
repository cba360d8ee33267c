/// A min-cost flow on a small graph with non-negative costs: successive shortest paths, Dijkstra with potentials.
/// Used by ``ScrollOracle`` to pick, exactly, which rows to render in which time buckets.
struct MinCostFlow {
    private struct Edge {
        let to: Int
        var capacity: Int
        let cost: Int
    }

    private var edges: [Edge] = []
    private var adjacency: [[Int]]

    init(nodes: Int) { adjacency = Array(repeating: [], count: nodes) }

    var nodeCount: Int { adjacency.count }

    /// Adds an edge and returns its index (its flow is ``flow(_:)``).
    @discardableResult
    mutating func addEdge(from: Int, to: Int, capacity: Int, cost: Int) -> Int {
        precondition(cost >= 0, "MinCostFlow needs non-negative costs")
        adjacency[from].append(edges.count)
        edges.append(Edge(to: to, capacity: capacity, cost: cost))
        adjacency[to].append(edges.count)
        edges.append(Edge(to: from, capacity: 0, cost: -cost))
        return edges.count - 2
    }

    /// The flow on the edge `addEdge` returned.
    func flow(_ edge: Int) -> Int { edges[edge ^ 1].capacity }

    /// Sends as much flow as it can from `source` to `sink` along cheapest paths, one shortest path at a time; returns
    /// the flow and its cost.
    mutating func run(source: Int, sink: Int) -> (flow: Int, cost: Int) {
        let count = adjacency.count
        var potential = [Int](repeating: 0, count: count)
        var totalFlow = 0, totalCost = 0
        let unreached = Int.max / 4
        while true {
            var distance = [Int](repeating: unreached, count: count)
            var via = [Int](repeating: -1, count: count)
            var heap = MinHeap()
            distance[source] = 0
            heap.push(0, source)
            while let (d, node) = heap.pop() {
                if d > distance[node] { continue }
                for index in adjacency[node] {
                    let edge = edges[index]
                    guard edge.capacity > 0 else { continue }
                    let next = d + edge.cost + potential[node] - potential[edge.to]
                    if next < distance[edge.to] {
                        distance[edge.to] = next
                        via[edge.to] = index
                        heap.push(next, edge.to)
                    }
                }
            }
            guard distance[sink] < unreached else { break }
            for node in 0..<count where distance[node] < unreached { potential[node] += distance[node] }
            var push = Int.max
            var node = sink
            while node != source {
                let index = via[node]
                push = min(push, edges[index].capacity)
                node = edges[index ^ 1].to
            }
            node = sink
            while node != source {
                let index = via[node]
                edges[index].capacity -= push
                edges[index ^ 1].capacity += push
                totalCost += push * edges[index].cost
                node = edges[index ^ 1].to
            }
            totalFlow += push
        }
        return (totalFlow, totalCost)
    }
}

/// A binary min-heap of (key, node).
private struct MinHeap {
    private var items: [(key: Int, node: Int)] = []

    mutating func push(_ key: Int, _ node: Int) {
        items.append((key, node))
        var child = items.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard items[child].key < items[parent].key else { break }
            items.swapAt(child, parent)
            child = parent
        }
    }

    mutating func pop() -> (Int, Int)? {
        guard let top = items.first else { return nil }
        let last = items.removeLast()
        if !items.isEmpty {
            items[0] = last
            var parent = 0
            while true {
                let left = 2 * parent + 1, right = left + 1
                var smallest = parent
                if left < items.count, items[left].key < items[smallest].key { smallest = left }
                if right < items.count, items[right].key < items[smallest].key { smallest = right }
                if smallest == parent { break }
                items.swapAt(parent, smallest)
                parent = smallest
            }
        }
        return (top.key, top.node)
    }
}
