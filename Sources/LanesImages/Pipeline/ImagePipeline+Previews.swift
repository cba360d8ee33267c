import Foundation
import Lanes
import LanesLists

// Progressive previews: while a progressive JPEG or an interlaced PNG downloads, the requests and bindings that asked
// for previews receive what has arrived, at most once per `previewInterval`, and then the final image.
extension ImagePipeline {
    /// Loads `request` like ``load(_:priority:completion:)`` and, while a progressive JPEG or an interlaced PNG
    /// downloads, hands `preview` what has arrived so far (fitted to the request's target size, before its
    /// processors), at most once per ``ImagePipelineConfiguration/previewInterval``, all on the main actor. No
    /// preview comes after the image, after an error or after ``ImageTask/cancel()``.
    ///
    /// ```swift
    /// pipeline.load(ImageRequest(url: url, targetSize: TargetSize(maxWidth: 800)),
    ///               preview: { cell.image = $0 }) { result in
    ///     cell.image = try? result.get()
    /// }
    /// ```
    @discardableResult
    public func load(
        _ request: ImageRequest, priority: WorkPriority = .normal, preview: @escaping @MainActor (Bitmap) -> Void,
        completion: @escaping @MainActor (Result<Bitmap, any Error>) -> Void
    ) -> ImageTask {
        load(request, priority: priority, on: .main, preview: onMainActor(preview), completion: onMainActor(completion))
    }

    /// Loads `request` like ``load(_:priority:on:completion:)``, handing `preview` the previews of a progressive
    /// download on `queue` (see ``load(_:priority:preview:completion:)``); nil `queue`: on the thread that rendered
    /// them.
    ///
    /// ```swift
    /// pipeline.load(request, on: nil, preview: { print("preview \($0.width)x\($0.height)") }) { print($0) }
    /// ```
    @discardableResult
    public func load(
        _ request: ImageRequest, priority: WorkPriority = .normal, on queue: WorkQueue?,
        preview: @escaping @Sendable (Bitmap) -> Void,
        completion: @escaping @Sendable (Result<Bitmap, any Error>) -> Void
    ) -> ImageTask {
        let stopPreviews = LockedValue<@Sendable () -> Void>({})
        let end = ImageTask.End { result in
            stopPreviews.withLock { $0 }()
            Self.deliver(result, on: queue, to: completion)
        }
        // Listening before the load starts its fetch, so the feed sees the first chunk. No preview after the end.
        let stop = previewListeners.listen(to: request, on: queue) { bitmap in if !end.isFinished { preview(bitmap) } }
        // Recorded before the load starts: even a cache hit, answered inside `load`, stops the listening.
        stopPreviews.withLock { $0 = stop }
        return load(request, priority: priority, end: end)
    }

    /// The fetch of the stage graph's fetch stage: the fetcher's, and while someone listens for previews of `url`,
    /// each chunk goes to a ``PreviewFeed`` as well, whose decoder's final image comes with the body (so the decode
    /// stage does not decode it again). The feed's decoding follows the fetch's priority.
    func fetchFeedingPreviews(
        _ url: URL, priority: WorkPriority, completion: @escaping @Sendable (Result<FetchedBody, FetchError>) -> Void
    ) -> any FetchHandle {
        let fetcher = configuration.fetcher
        let key = url.absoluteString
        guard let interval = configuration.previewInterval, !url.isFileURL,
              !previewListeners.listeners(for: key).isEmpty else {
            return fetcher.fetch(url, priority: priority) { completion($0.map { FetchedBody(data: $0) }) }
        }
        let listeners = previewListeners
        let feed = PreviewFeed(listeners: { listeners.listeners(for: key) }, interval: interval,
                               clock: configuration.previewClock, maxPixels: configuration.maxPixels,
                               priority: priority, counters: counters)
        let body = LockedValue(Data()) // the stage decodes (and the disk cache keeps) the whole body
        let transfer = fetcher.fetch(url, priority: priority, chunks: { chunk in
            body.withLock { $0.append(chunk) }
            feed.take(chunk)
        }) { result in
            let data = body.withLock { body in defer { body = Data() }; return body }
            feed.end(complete: (try? result.get()) != nil) { arrived in
                completion(result.map { FetchedBody(data: data, arrived: arrived) })
            }
        }
        return FeedingTransfer(transfer: transfer, feed: feed)
    }
}

/// A transfer that feeds previews: its priority is the feed's too.
struct FeedingTransfer: FetchHandle {
    let transfer: any FetchHandle
    let feed: PreviewFeed

    func cancel() { transfer.cancel() }

    func setPriority(_ priority: WorkPriority) {
        transfer.setPriority(priority)
        feed.setPriority(priority)
    }
}
