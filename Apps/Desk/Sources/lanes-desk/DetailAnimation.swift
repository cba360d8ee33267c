import CGtk4
import Foundation
import Lanes
import LanesGLib
import LanesImages

/// Plays an animated GIF or WebP in the detail view: each frame shown for its delay (``Animation/Frame/displayDelay``,
/// as browsers time them) by a one-shot GLib timeout on the main loop, looping as the file says (for ever when it
/// says 0). ``stop()`` cancels the pending timeout, so nothing is drawn once the view has closed.
@MainActor
final class DetailAnimation {
    private let animation: Animation
    private let picture: Widget
    private var index = 0
    private var plays = 0
    private var timeout: UInt32?
    /// Frames drawn so far, and which of them (by index) were drawn.
    private(set) var framesShown = 0
    private(set) var distinctFramesShown: Set<Int> = []

    /// Whether a frame is scheduled (false once stopped, and once a finite loop count has played out).
    var isRunning: Bool { timeout != nil }
    /// Whether ``stop()`` was called.
    private(set) var isStopped = false

    init(_ animation: Animation, in picture: Widget) {
        self.animation = animation
        self.picture = picture
    }

    /// Draws the first frame and schedules the next.
    func start() {
        index = 0
        plays = 0
        show()
    }

    /// Cancels the pending frame; nothing more is drawn.
    func stop() {
        isStopped = true
        if let timeout { GLibTimeout.cancel(timeout) }
        timeout = nil
    }

    private func show() {
        let frame = animation.frames[index]
        setTexture(makeTexture(frame.bitmap), in: picture)
        framesShown += 1
        distinctFramesShown.insert(index)
        let milliseconds = frame.displayDelay.components.seconds * 1000
            + frame.displayDelay.components.attoseconds / 1_000_000_000_000_000
        timeout = GLibTimeout.start(intervalMilliseconds: UInt32(clamping: max(10, milliseconds))) { [weak self] in
            self?.advance()
            return false   // one shot: the next frame schedules its own delay
        }
    }

    private func advance() {
        timeout = nil
        index += 1
        if index == animation.frames.count {
            plays += 1
            if animation.loopCount != 0 && plays >= animation.loopCount { return }  // stays on the last frame
            index = 0
        }
        show()
    }

    /// Decodes `url`'s frames when it is a local animated GIF or WebP (or AVIF sequence, JPEG XL animation) within
    /// `maxBytes` of frames; nil for a still image, a remote one, or a file that fails (the detail view then shows its still render).
    nonisolated static func load(_ url: URL, maxBytes: Int = 128 << 20) -> Animation? {
        guard url.isFileURL, let data = try? Data(contentsOf: url, options: .alwaysMapped),
              let info = try? ImageDecoder().probe(data), info.format.decodesFrames,
              let animation = try? ImageDecoder().decodeAnimation(data, maxBytes: maxBytes),
              animation.isAnimated else { return nil }
        return animation
    }

    /// Where ``load(_:maxBytes:)`` runs: off the main thread, one file at a time.
    nonisolated static let queue = WorkQueue("detail animation", maxConcurrency: 1)
}
