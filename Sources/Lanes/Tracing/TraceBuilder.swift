/// Turns recorded events into trace events. Process 1 ("queues") has a track per queue — a concurrent queue gets
/// one per simultaneously running item, named "queue", "queue #2", … so slices never overlap on a track; process 2
/// ("threads") has a track per thread; process 3 ("markers") holds intervals the app added. Items are complete
/// ("X") slices from start to finish; cancellations and app markers are instants ("i").
struct TraceBuilder {
    let events: [WorkEvent]
    let markers: [TraceMarker]
    let threadNames: [UInt64: String]

    private struct Slice {
        let name: String
        let category: String
        let start: UInt64
        var end: UInt64
        let args: [(String, TraceJSON.Value)]
    }

    private struct Open {
        let event: WorkEvent
        let slot: Int
    }

    /// Track ids within process 1 (queue slots) and 3 (marker tracks), in order of first use.
    private struct Tracks {
        var queueOrder: [String: Int] = [:]
        var slotTIDs: [String: [Int]] = [:]
        var names: [(pid: Int, tid: Int, name: String, sort: Int)] = []
        var markerTIDs: [String: Int] = [:]

        mutating func queueIndex(_ queue: String) -> Int {
            if let index = queueOrder[queue] { return index }
            queueOrder[queue] = queueOrder.count
            return queueOrder.count - 1
        }

        mutating func tid(queue: String, slot: Int) -> Int {
            let index = queueIndex(queue)
            var tids = slotTIDs[queue] ?? []
            while tids.count <= slot {
                let tid = names.filter { $0.pid == 1 }.count + 1
                let name = tids.isEmpty ? queue : "\(queue) #\(tids.count + 1)"
                names.append((1, tid, name, index * 1_000 + tids.count))
                tids.append(tid)
            }
            slotTIDs[queue] = tids
            return tids[slot]
        }

        mutating func tid(marker track: String) -> Int {
            if let tid = markerTIDs[track] { return tid }
            let tid = markerTIDs.count + 1
            markerTIDs[track] = tid
            names.append((3, tid, track, tid))
            return tid
        }
    }

    func json(dropped: Int) -> String {
        let sorted = events.enumerated().sorted { ($0.element.time, $0.offset) < ($1.element.time, $1.offset) }.map(\.element)
        let times = sorted.map(\.time) + markers.map(\.start)
        let base = times.min() ?? 0
        let last = (sorted.map(\.time) + markers.map { $0.end ?? $0.start }).max() ?? 0
        var tracks = Tracks()
        var open: [UInt64: Open] = [:]
        var busy: [String: [Bool]] = [:]
        var queueSlices: [(tid: Int, slice: Slice)] = []
        var threadSlices: [UInt64: [Slice]] = [:]
        var instants: [(tid: Int, name: String, category: String, time: UInt64, args: [(String, TraceJSON.Value)])] = []

        func args(_ event: WorkEvent, state: WorkState) -> [(String, TraceJSON.Value)] {
            [("queue", .string(event.queue)), ("state", .string(state.description)),
             ("itemID", .integer(Int(truncatingIfNeeded: event.itemID))), ("thread", .integer(Int(event.thread)))]
        }

        func close(_ item: Open, at end: UInt64, state: WorkState, sameThread: Bool) {
            let started = item.event
            let slice = Slice(
                name: started.label, category: "item", start: started.time - base, end: end - base,
                args: args(started, state: state))
            queueSlices.append((tracks.tid(queue: started.queue, slot: item.slot), slice))
            if sameThread { threadSlices[started.thread, default: []].append(slice) }
            busy[started.queue]?[item.slot] = false
        }

        for event in sorted {
            let queue = event.queue.isEmpty ? "(no queue)" : event.queue
            _ = tracks.queueIndex(queue)
            switch event.kind {
            case .added:
                break
            case .started:
                var slots = busy[queue] ?? []
                let slot = slots.firstIndex(of: false) ?? slots.count
                if slot == slots.count { slots.append(true) } else { slots[slot] = true }
                busy[queue] = slots
                open[event.itemID] = Open(event: event, slot: slot)
            case .finished:
                if let item = open.removeValue(forKey: event.itemID) {
                    close(item, at: event.time, state: event.state, sameThread: item.event.thread == event.thread)
                } else {
                    instants.append((tracks.tid(queue: queue, slot: 0), "\(event.label) (\(event.state), never ran)",
                        "item", event.time - base, args(event, state: event.state)))
                }
            case .cancelled:
                instants.append((tracks.tid(queue: queue, slot: 0), "cancel \(event.label)", "cancel",
                    event.time - base, args(event, state: event.state)))
            }
        }
        for item in open.values.sorted(by: { $0.event.time < $1.event.time }) {
            close(item, at: max(last, item.event.time), state: .running, sameThread: true)
        }

        var json = TraceJSON(capacity: 200 * (events.count + markers.count) + 4_096)
        for (pid, name) in [(1, "queues"), (2, "threads"), (3, "markers")] {
            metadata(&json, of: "process", pid: pid, tid: 0, name: name, sort: pid)
        }
        for thread in threadSlices.keys.sorted() {
            let name = threadNames[thread].flatMap { $0.isEmpty ? nil : "\($0) (\(thread))" } ?? "thread \(thread)"
            metadata(&json, pid: 2, tid: Int(thread), name: name, sort: Int(thread))
        }
        for marker in markers {
            if let end = marker.end, let track = marker.track {
                let slice = Slice(name: marker.name, category: marker.category, start: marker.start - base,
                                  end: end - base, args: [])
                emit(&json, slice, pid: 3, tid: tracks.tid(marker: track))
            } else if let track = marker.track {
                instants.append((tracks.tid(queue: track, slot: 0), marker.name, marker.category,
                                 marker.start - base, []))
            } else {
                json.event([("name", .string(marker.name)), ("cat", .string(marker.category)), ("ph", .string("i")),
                            ("s", .string("g")), ("ts", .micros(marker.start - base)), ("pid", .integer(1)),
                            ("tid", .integer(0))])
            }
        }
        for track in tracks.names { metadata(&json, pid: track.pid, tid: track.tid, name: track.name, sort: track.sort) }
        for (tid, slice) in queueSlices { emit(&json, slice, pid: 1, tid: tid) }
        for (thread, slices) in threadSlices.sorted(by: { $0.key < $1.key }) {
            for slice in Self.nested(slices) { emit(&json, slice, pid: 2, tid: Int(thread)) }
        }
        for instant in instants {
            json.event([("name", .string(instant.name)), ("cat", .string(instant.category)), ("ph", .string("i")),
                        ("s", .string("t")), ("ts", .micros(instant.time)), ("pid", .integer(1)),
                        ("tid", .integer(instant.tid)), ("args", .object(instant.args))])
        }
        return json.finish([("displayTimeUnit", .string("ms")),
                            ("otherData", .object([("droppedEvents", .integer(dropped)), ("source", .string("Lanes"))]))])
    }

    /// The name and sort index of a track (`kind` "thread") or of a process (`kind` "process").
    private func metadata(
        _ json: inout TraceJSON, of kind: String = "thread", pid: Int, tid: Int, name: String, sort: Int
    ) {
        json.event([("name", .string(kind + "_name")), ("ph", .string("M")), ("pid", .integer(pid)),
                    ("tid", .integer(tid)), ("args", .object([("name", .string(name))]))])
        json.event([("name", .string(kind + "_sort_index")), ("ph", .string("M")), ("pid", .integer(pid)),
                    ("tid", .integer(tid)), ("args", .object([("sort_index", .integer(sort))]))])
    }

    private func emit(_ json: inout TraceJSON, _ slice: Slice, pid: Int, tid: Int) {
        json.event([("name", .string(slice.name)), ("cat", .string(slice.category)), ("ph", .string("X")),
                    ("ts", .micros(slice.start)), ("dur", .micros(slice.end - slice.start)), ("pid", .integer(pid)),
                    ("tid", .integer(tid)), ("args", .object(slice.args))])
    }

    /// Slices on one thread must nest; a slice that would cross its parent's end (an item whose body handed off
    /// and finished elsewhere) is cut at that end.
    private static func nested(_ slices: [Slice]) -> [Slice] {
        var result: [Slice] = []
        var stack: [UInt64] = []
        for var slice in slices.sorted(by: { ($0.start, $1.end) < ($1.start, $0.end) }) {
            while let top = stack.last, top <= slice.start { stack.removeLast() }
            if let top = stack.last, slice.end > top { slice.end = top }
            stack.append(slice.end)
            result.append(slice)
        }
        return result
    }
}
