import Lanes
import LanesLists

/// A cell's binding to one image request at a time: the lists' `ContentBinding`, fed by an ``ImagePipeline``'s
/// ``ImagePipeline/loader``. It hands a cached image over before `show(_:priority:)` returns (no
/// flicker); otherwise the placeholder runs and the image is handed over on the delivery queue, but only while the
/// binding still shows that request: a cell reused for another row never receives the old row's image. Showing
/// another request, or `clear()`, withdraws the old one, which stops its fetch, decode and filter
/// unless another cell wants them.
///
/// ```swift
/// @MainActor final class PhotoCell {
///     var image: Bitmap?
///     lazy var photo = ImageBinding(pipeline: pipeline, placeholder: { [unowned self] _ in image = nil }) {
///         [unowned self] _, result in image = try? result.get()
///     }
/// }
/// cell.photo.show(ImageRequest(url: url, targetSize: TargetSize(maxWidth: 300), processors: [TiltShift()]))
/// cell.photo.setPriority(.prefetch)   // near the edge of the screen
/// cell.photo.clear()                  // did end display
/// ```
public typealias ImageBinding = ContentBinding<ImageRequest, Bitmap>

extension ContentBinding where Key == ImageRequest, Value == Bitmap {
    /// A binding to `pipeline`'s loader for `deliveryQueue`: the placeholder, then (with a `preview` handler) what
    /// has arrived of a progressive image (at most once per ``ImagePipelineConfiguration/previewInterval``), then
    /// the `handler` with the image. Previews only reach the binding while it still shows the request they belong to
    /// and its image has not arrived: a reused cell never shows another row's preview.
    /// - Parameters:
    ///   - pipeline: the pipeline whose loader (``ImagePipeline/loader(deliveringOn:)``) the binding uses.
    ///   - deliveryQueue: `WorkQueue.main` unless a test injects its own queue (its items must run on the main
    ///     actor).
    ///   - placeholder: resets the view when `show(_:priority:)` is given a request whose image is not cached (a
    ///     reused cell never keeps the previous row's image).
    ///   - quick: whether the binding has the pipeline's quick tier (``ImagePipeline/quickLoader(deliveringOn:)``):
    ///     `show(_:priority:quick:)` with `quick: true` then shows a quick rendering first, and a cached one replaces
    ///     the placeholder (the binding's `isShowingQuick` says which the handler was given).
    ///   - preview: receives each preview, fitted to the request's target size, on the main actor (nil: none).
    ///   - handler: receives the request's result (a quick rendering, then the image), on the main actor.
    ///
    /// ```swift
    /// let avatar = ImageBinding(pipeline: pipeline, placeholder: { _ in view.image = nil }) { _, result in
    ///     view.image = try? result.get()
    /// }
    /// let photo = ImageBinding(pipeline: pipeline, placeholder: { _ in view.image = nil },
    ///                          preview: { _, bitmap in view.image = bitmap }) { _, result in
    ///     view.image = try? result.get()
    /// }
    /// let fast = ImageBinding(pipeline: pipeline, quick: true, placeholder: { _ in view.image = nil }) { _, result in
    ///     view.image = try? result.get()   // a quick rendering first, then the image
    /// }
    /// fast.show(request, quick: true)
    /// ```
    public convenience init(
        pipeline: ImagePipeline, deliveryQueue: WorkQueue = .main, quick: Bool = false,
        placeholder: @escaping @MainActor (ImageRequest) -> Void,
        preview: (@MainActor (ImageRequest, Bitmap) -> Void)? = nil,
        handler: @escaping @MainActor (ImageRequest, Result<Bitmap, any Error>) -> Void
    ) {
        self.init(loader: pipeline.loader(deliveringOn: deliveryQueue),
                  quick: quick ? pipeline.quickLoader(deliveringOn: deliveryQueue) : nil,
                  placeholder: placeholder, handler: handler)
        guard let preview, pipeline.configuration.previewInterval != nil else { return }
        let listeners = pipeline.previewListeners
        progress = { request in
            listeners.listen(to: request, on: deliveryQueue, onMainActor { [weak self] (bitmap: Bitmap) in
                // A reused cell shows another request: it gets nothing; nor does one whose image has arrived.
                guard let self, self.key == request, !self.isLoaded else { return }
                preview(request, bitmap)
            })
        }
    }

    /// The request shown now, or nil when cleared (the binding's `key`).
    public var request: ImageRequest? { key }
}

extension ImagePipeline {
    /// The pipeline as a list loader delivering on the main queue: what ``ImageBinding`` and
    /// `ListModel.connect(to:quick:key:binding:)` use. Its cache is the pipeline's memory cache; its job for a request is
    /// the pipeline's stage for it (shared with every other request that needs it). The loader reads the memory
    /// cache as each request's cache policy allows; the stages write it.
    ///
    /// ```swift
    /// list.connect(to: pipeline.loader, key: { requests[$0] }, binding: { $0.photo })
    /// ```
    public var loader: ContentLoader<ImageRequest, Bitmap> { loader(deliveringOn: .main) }

    /// The pipeline as a list loader delivering on `queue` (one per queue, made on first use).
    ///
    /// ```swift
    /// let loader = pipeline.loader(deliveringOn: testQueue)
    /// ```
    public func loader(deliveringOn queue: WorkQueue) -> ContentLoader<ImageRequest, Bitmap> {
        loaders.withLock { loaders in
            if let loader = loaders[ObjectIdentifier(queue)] { return loader }
            let loader = ContentLoader<ImageRequest, Bitmap>(
                name: "image", queue: nil, deliveryQueue: queue, cache: memoryCache, costs: costs,
                threads: decodeQueue.maxConcurrency,
                // Requests equal for the memory cache whose switches differ need stages of their own.
                variant: { Int($0.cachePolicy.rawValue) }, readsCache: { $0.cachePolicy.contains(.readsMemory) }
            ) { [unowned self] request in
                // The job's cache writes count while it waits for its stage (see `CacheWrites`): the job is an item of
                // its own, ended when its stage ends or when the loader withdraws it (the stage may go on for others).
                let wish = cacheWrites.add(request, thumbnails: configuration.thumbnailCache != nil)
                let stage = stage(for: request)
                let job = callerThread.add(consuming: stage, policy: .fail, label: "image", priority: .background) {
                    bitmap, _ in bitmap
                }
                job.onFinishInline { _ in wish.cancel() }
                return job
            }
            loaders[ObjectIdentifier(queue)] = loader
            return loader
        }
    }
}
