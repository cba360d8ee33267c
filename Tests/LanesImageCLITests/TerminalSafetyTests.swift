import Foundation
import Lanes
import LanesAppSupport
@testable import lanes_image
import Testing

/// File names, URL paths and error text come from outside: none of their control characters reach the terminal or
/// an output file name.
@Suite("lanes-image terminal safety", .timeLimit(.minutes(5)))
struct TerminalSafetyTests {
    private func hasControls(_ text: String) -> Bool {
        text.unicodeScalars.contains { TerminalText.isUnsafe($0) }
    }

    @Test("a URL path with %1b%5d0;…%07 never puts control characters in an output name")
    func outputNamesHaveNoControls() {
        let url = URL(string: "https://example.com/%1b%5d0;PWNED%07.png")!
        #expect(url.deletingPathExtension().lastPathComponent.contains("\u{1B}"))  // what the name is derived from
        #expect(InputList.stem(of: url) == "_]0;PWNED_")
        #expect(InputList.stem(of: URL(fileURLWithPath: "/in/x\u{9B}31m\u{202E}gnp.png")) == "x_31m_gnp")
        let jobs = InputList.jobs(for: [(url, url.absoluteString)], outputDirectory: URL(fileURLWithPath: "/out"),
                                  fileExtension: "png")
        #expect(!hasControls(jobs[0].output.path))
    }

    @Test("progress lines and the summary show names and reasons escaped")
    func reportsEscaped() {
        let lines = LockedValue<[String]>([])
        let reporter = ProgressReporter(interactive: false, write: { line in lines.withLock { $0.append(line) } })
        let job = ImageJob(source: URL(fileURLWithPath: "/in/a.png"), displayName: "x\u{1B}]0;PWN\u{07}.png",
                           output: URL(fileURLWithPath: "/out/x_]0;PWN_.png"))
        reporter.begin(total: 2)
        reporter.started(job)
        reporter.finished(job, failed: true, detail: "no file at /in/\u{1B}[2J\u{9B}")
        reporter.finished(job, failed: false, detail: "/out/\u{1B}]0;t\u{07}.png")
        let written = lines.withLock { $0 }
        #expect(written.count == 2)
        #expect(written[0] == #"[1/2] FAILED x\e]0;PWN\x07.png: no file at /in/\e[2J\u{9B}"# + "\n")
        #expect(written.allSatisfy { !hasControls($0.replacingOccurrences(of: "\n", with: "")) })

        let interactive = LockedValue<[String]>([])
        let bar = ProgressReporter(interactive: true, write: { line in interactive.withLock { $0.append(line) } })
        bar.begin(total: 1)
        bar.started(job)
        bar.finished(job, failed: true, detail: "bad \u{7}")
        for text in interactive.withLock({ $0 }) {
            // Only the bar's own "carriage return, erase line" and newline are control characters.
            let own = text.replacingOccurrences(of: "\r\u{1B}[2K", with: "").replacingOccurrences(of: "\n", with: "")
            #expect(!hasControls(own))
        }

        let results = [JobResult(job: job, detail: "corrupt \u{1B}[31m", failed: true)]
        let summary = ProcessCommand.summary(results, outputDirectory: URL(fileURLWithPath: "/out\u{1B}"), seconds: 1,
                                             plan: ProcessingPlan())
        #expect(!hasControls(summary.replacingOccurrences(of: "\n", with: "")))
        #expect(summary.contains(#"x\e]0;PWN\x07.png: corrupt \e[31m"#))
    }

    @Test("an argument the parser rejects is printed escaped: the parser's own messages go through one sanitizer", arguments: [
        ["--colour\u{1B}[31m"], ["process", "--resize", "1x\u{1B}]0;PWNED\u{07}", "a.png"],
        ["process", "--png-filter", "\u{9B}2J", "a.png"],
    ])
    func parserErrorsEscaped(_ arguments: [String]) async throws {
        let binary = try #require(InterruptTests.binary, "build lanes-image first (swift build --build-tests)")
        let folder = try TemporaryFolder()
        let result = try await IndependentDecoders.run(binary, arguments, in: folder.url)
        #expect(result.status == 64)
        #expect(result.errors.contains("Usage:"))
        #expect(!hasControls(result.errors.replacingOccurrences(of: "\n", with: "")), "\(result.errors.debugDescription)")
        #expect(result.errors.contains(#"\e"#) || result.errors.contains(#"\u{9B}"#), "\(result.errors.debugDescription)")
    }
}
