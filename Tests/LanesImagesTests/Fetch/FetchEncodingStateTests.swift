import Foundation
import Lanes
@testable import LanesImages
import LanesTesting
import Testing

/// A `Content-Encoding` in the transfer state machine, driven without URLSession: the announced length counts encoded
/// bytes, the bytes delivered are decoded, and the two are never compared.
@Suite("Fetch: encoded bodies in the state machine", .timeLimit(.minutes(5)))
struct FetchEncodingStateTests {
    let machine = FetchStateMachineTests()
    let url = "http://host/a"

    @Test("a gzip body that decodes to fewer bytes than its Content-Length succeeds (the issue's 222206 of 222294)")
    func decodedShorterThanEncoded() throws {
        let log = FetchStateMachineTests.Log()
        var state = machine.makeState(attempts: 1, maxBytes: 1 << 20, log: log)
        _ = state.begin(attempt: 1, taskID: 1, task: 1, now: 0)
        machine.deliver(state.response(taskID: 1, status: 200, expectedLength: 222_294, contentEncoding: "gzip", now: 0))
        machine.deliver(state.received(taskID: 1, Data(count: 222_206), now: 0))
        machine.deliver(state.completed(taskID: 1, error: nil, now: 0))
        #expect(try #require(log.elements.first).get().count == 222_206)
    }

    @Test("identity (any case, spaces) is no encoding: the short-body check still applies")
    func identityIsPlain() {
        #expect(TransferState<Int>.encoding(" Identity ") == nil)
        #expect(TransferState<Int>.encoding("") == nil)
        #expect(TransferState<Int>.encoding(" GZip") == "gzip")
        // A server's header is cut before it reaches an error message.
        #expect(TransferState<Int>.encoding(String(repeating: "x", count: 10_000))?.count == 40)
        let log = FetchStateMachineTests.Log()
        var state = machine.makeState(attempts: 1, log: log)
        _ = state.begin(attempt: 1, taskID: 1, task: 1, now: 0)
        machine.deliver(state.response(taskID: 1, status: 200, expectedLength: 50, contentEncoding: "identity", now: 0))
        machine.deliver(state.received(taskID: 1, Data(count: 20), now: 0))
        machine.deliver(state.completed(taskID: 1, error: nil, now: 0))
        #expect(failure(of: log.elements.first) == .shortBody(url: url, received: 20, expected: 50))
    }

    @Test("a connection failure inside an encoded body is an encoded body that failed, retried, whatever the count")
    func cutInsideEncodedBody() {
        let log = FetchStateMachineTests.Log()
        var state = machine.makeState(attempts: 2, maxBytes: 1 << 20, log: log)
        let lost = FetchError.connection(url: url, reason: "the connection was lost or reset before the response ended")
        _ = state.begin(attempt: 1, taskID: 1, task: 1, now: 0)
        machine.deliver(state.response(taskID: 1, status: 200, expectedLength: 500, contentEncoding: "deflate", now: 0))
        machine.deliver(state.received(taskID: 1, Data(count: 900), now: 0))  // more decoded bytes than announced
        let effects = state.completed(taskID: 1, error: lost, now: 0)
        let expected = FetchError.encodedBodyFailed(url: url, encoding: "deflate")
        #expect(effects.retry?.after == expected)
        #expect(expected.description == "\(url): the deflate-encoded body ended early or could not be decoded")
        #expect(expected.isRetryable)
    }

    @Test("the limit counts decoded bytes: a small encoded length does not let a large decoded body through")
    func limitOnDecodedBytes() {
        let log = FetchStateMachineTests.Log()
        var state = machine.makeState(attempts: 3, maxBytes: 1000, log: log)
        _ = state.begin(attempt: 1, taskID: 1, task: 1, now: 0)
        machine.deliver(state.response(taskID: 1, status: 200, expectedLength: 100, contentEncoding: "gzip", now: 0))
        machine.deliver(state.received(taskID: 1, Data(count: 600), now: 0))
        machine.deliver(state.received(taskID: 1, Data(count: 600), now: 0))
        #expect(failure(of: log.elements.first) == .tooLarge(url: url, limit: 1000))
    }
}
