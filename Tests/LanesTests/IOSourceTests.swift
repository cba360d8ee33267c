import Lanes
import LanesTesting
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

@Suite("File-descriptor readability", .timeLimit(.minutes(5)))
struct IOSourceTests {
    /// A pipe: (read end, write end).
    static func makePipe() -> (Int32, Int32) {
        var ends: [Int32] = [0, 0]
        let status = ends.withUnsafeMutableBufferPointer { pipe($0.baseAddress!) }
        precondition(status == 0, "pipe() failed")
        return (ends[0], ends[1])
    }

    static func write(_ text: String, to descriptor: Int32) {
        let bytes = Array(text.utf8)
        let written = bytes.withUnsafeBytes { raw in
            #if canImport(Glibc)
            Glibc.write(descriptor, raw.baseAddress, raw.count)
            #elseif canImport(Musl)
            Musl.write(descriptor, raw.baseAddress, raw.count)
            #else
            Darwin.write(descriptor, raw.baseAddress, raw.count)
            #endif
        }
        precondition(written == bytes.count)
    }

    @Test("bytes written to a pipe reach the handler on the chosen queue, then end of file when the writer closes")
    func pipeBytesThenEOF() async {
        let (reader, writer) = Self.makePipe()
        let queue = WorkQueue("io-lane", maxConcurrency: 1)
        let received = Recorder<UInt8>()
        let onQueue = Recorder<Bool>()
        let gotHello = Gate()
        let gotEOF = Gate()
        let source = ReadabilitySource(fileDescriptor: reader, on: queue, closeOnCancel: true) { readable in
            onQueue.append(readable.fileDescriptor == reader)
            switch readable.read() {
            case .bytes(let bytes):
                for byte in bytes { received.append(byte) }
                if received.elements.count == 5 { gotHello.open() }
            case .endOfFile:
                gotEOF.open()  // the source cancels itself once this returns
            case .wouldBlock, .failed:
                break
            }
        }
        Self.write("hello", to: writer)
        await gotHello.wait()
        #expect(String(decoding: received.elements, as: UTF8.self) == "hello")
        close(writer)
        await gotEOF.wait()
        let tornDown = Gate()
        source.onCancelled { tornDown.open() }
        await tornDown.wait()  // the source no longer watches the descriptor (and closed it)
        #expect(source.isCancelled)
        #expect(onQueue.elements.allSatisfy { $0 })
        #expect(received.elements.count == 5)
    }

    @Test("a handler that does not read everything is called again; a busy queue is not flooded")
    func levelTriggered() async {
        let (reader, writer) = Self.makePipe()
        defer { close(writer) }
        let manual = ManualExecutor()
        let queue = WorkQueue("io-manual", maxConcurrency: 1, executor: manual)
        let chunks = Recorder<[UInt8]>()
        // Wait, without sleeping, until the source has handed a first and a second delivery to the queue.
        let added = Recorder<Int>()
        let first = Gate(), second = Gate(), third = Gate()
        let token = WorkEvents.observe { event in
            guard event.queue == "io-manual", event.kind == .added else { return }
            added.append(1)
            if added.elements.count == 1 { first.open() }
            if added.elements.count == 2 { second.open() }
            if added.elements.count == 3 { third.open() }
        }
        defer { token.cancel() }
        let source = ReadabilitySource(fileDescriptor: reader, on: queue, closeOnCancel: true) { readable in
            if case .bytes(let bytes) = readable.read(maxBytes: 2) { chunks.append(bytes) }
        }
        Self.write("abcdef", to: writer)
        await first.wait()
        // The source is paused while its delivery waits: one item, however long the queue stays busy.
        #expect(queue.counts.unfinished == 1)
        #expect(added.elements.count == 1)
        #expect(manual.runNext())
        #expect(chunks.elements == [Array("ab".utf8)])
        // Reading 2 of 6 bytes leaves data: the source fires again once the handler returned.
        await second.wait()
        #expect(manual.runNext())
        #expect(chunks.elements == [Array("ab".utf8), Array("cd".utf8)])
        await third.wait()  // "ef" remains
        source.cancel()
        #expect(manual.runNext())  // a delivery handed over before the cancel is dropped...
        let tornDown = Gate()
        source.onCancelled { tornDown.open() }
        await tornDown.wait()  // ...which lets the source finish; only now is it safe to close the other end
        #expect(chunks.elements.count == 2)
    }

    @Test("bytes and end of file that arrive together are all delivered, even read two bytes at a time")
    func dataWithHangUp() async {
        let (reader, writer) = Self.makePipe()
        let received = Recorder<UInt8>()
        let finished = Gate()
        let source = ReadabilitySource(fileDescriptor: reader, closeOnCancel: true) { readable in
            // No queue: the handler runs on the source's own dispatch queue.
            if case .bytes(let bytes) = readable.read(maxBytes: 2) {
                for byte in bytes { received.append(byte) }
            }
        }
        source.onCancelled { finished.open() }
        Self.write("abcdef", to: writer)
        close(writer)  // the data and the hang-up are pending together
        await finished.wait()  // end of file cancels the source
        #expect(String(decoding: received.elements, as: UTF8.self) == "abcdef")
        #expect(source.isCancelled)
    }
}
