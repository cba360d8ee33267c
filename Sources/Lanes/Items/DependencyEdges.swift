/// A node's unfinished dependencies. Most items wait on one or two, so the first two edges are stored inline and
/// found by identity (no hashing, no allocation); further edges go to a dictionary, so a node with thousands of
/// dependencies still adds and removes each in O(1).
struct DependencyEdges {
    private var first: Edge?
    private var second: Edge?
    /// Edges beyond the first two; nil when there are none.
    private var more: [ObjectIdentifier: Edge]?

    init() {}

    var isEmpty: Bool { first == nil && second == nil && more == nil }

    /// The edge to `node`, if any.
    func edge(to node: WorkNode) -> Edge? {
        if let first, first.node === node { return first }
        if let second, second.node === node { return second }
        return more?[ObjectIdentifier(node)]
    }

    /// Records an edge; the caller has checked that none to the same node exists.
    mutating func insert(_ edge: Edge) {
        if first == nil {
            first = edge
        } else if second == nil {
            second = edge
        } else {
            more = more ?? [:]
            more![ObjectIdentifier(edge.node)] = edge
        }
    }

    /// Removes and returns the edge to `node`, if any.
    mutating func remove(_ node: WorkNode) -> Edge? {
        if let edge = first, edge.node === node {
            first = nil
            return edge
        }
        if let edge = second, edge.node === node {
            second = nil
            return edge
        }
        guard more != nil, let edge = more!.removeValue(forKey: ObjectIdentifier(node)) else { return nil }
        if more!.isEmpty { more = nil }
        return edge
    }

    /// Calls `body` with every edge.
    func forEach(_ body: (Edge) -> Void) {
        if let first { body(first) }
        if let second { body(second) }
        if let more { for edge in more.values { body(edge) } }
    }

    /// Calls `body` with every edge, in place.
    mutating func modifyEach(_ body: (inout Edge) -> Void) {
        if first != nil { body(&first!) }
        if second != nil { body(&second!) }
        if more != nil {
            var index = more!.values.startIndex
            while index != more!.values.endIndex {
                body(&more!.values[index])
                more!.values.formIndex(after: &index)
            }
        }
    }

    mutating func removeAll() {
        first = nil
        second = nil
        more = nil
    }
}

/// How many waiting dependents lend each priority level, stored inline (no allocation per node that is waited on).
struct LentLevels {
    private var counts: (Int32, Int32, Int32, Int32, Int32) = (0, 0, 0, 0, 0)

    init() {}

    subscript(level: WorkPriority) -> Int32 {
        get {
            switch level {
            case .background: counts.0
            case .utility: counts.1
            case .prefetch: counts.2
            case .normal: counts.3
            case .visible: counts.4
            }
        }
        set {
            switch level {
            case .background: counts.0 = newValue
            case .utility: counts.1 = newValue
            case .prefetch: counts.2 = newValue
            case .normal: counts.3 = newValue
            case .visible: counts.4 = newValue
            }
        }
    }

    /// The highest level lent above `own`, or `own`.
    func effective(own: WorkPriority) -> WorkPriority {
        if own < .visible, counts.4 > 0 { return .visible }
        if own < .normal, counts.3 > 0 { return .normal }
        if own < .prefetch, counts.2 > 0 { return .prefetch }
        if own < .utility, counts.1 > 0 { return .utility }
        return own
    }
}

/// The items waiting on a node, in the order they started waiting. Most nodes have at most one (a chain), so the
/// first is stored inline: no array is allocated for it.
struct DependentEdges {
    private var first: Edge?
    private var rest: [Edge] = []

    init() {}

    var isEmpty: Bool { first == nil && rest.isEmpty }

    var count: Int { (first == nil ? 0 : 1) + rest.count }

    /// Appends an edge, keeping the order (once `rest` holds edges, new ones follow them).
    mutating func append(_ edge: Edge) {
        if first == nil, rest.isEmpty {
            first = edge
        } else {
            rest.append(edge)
        }
    }

    /// Removes the edge from `node`, if any (O(n): only `removeDependency` does this).
    mutating func remove(_ node: WorkNode) {
        if let edge = first, edge.node === node {
            first = nil
        } else if let index = rest.firstIndex(where: { $0.node === node }) {
            rest.remove(at: index)
        }
    }

    /// Calls `body` with every edge, in order.
    func forEach(_ body: (Edge) -> Void) {
        if let first { body(first) }
        for edge in rest { body(edge) }
    }

    /// The waiting nodes, in order.
    var nodes: [WorkNode] {
        var nodes: [WorkNode] = []
        nodes.reserveCapacity(count)
        forEach { nodes.append($0.node) }
        return nodes
    }

    mutating func removeAll() {
        first = nil
        rest = []
    }
}
