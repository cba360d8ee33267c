import Lanes

/// Binds a cell's image view to one request at a time — the seeds' reused-cell problem done right for images.
///
/// ``show(_:priority:)`` hands a cached image over before it returns (no flicker); otherwise the placeholder runs
/// and the image is handed over on the delivery queue, but only while the binding still shows that request: a cell
/// reused for another row never receives the old row's image. Showing another request, or ``clear()``, withdraws the
/// old one, which stops its fetch, decode and filter unless another cell wants them.
///
/// A binding belongs to the main actor, like the cell that holds it, and its handlers are `@MainActor`. Results come
/// through the delivery queue (`WorkQueue.main` by default); a test that injects another delivery queue must
/// run that queue's items on the main actor (a `ManualExecutor` pumped from a `@MainActor` test does) — the hand-over
/// checks it.
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
@MainActor
public final class ImageBinding {
    /// Where images come from.
    public let pipeline: ImagePipeline
    /// Where results are handed over (its items must run on the main actor).
    public let deliveryQueue: WorkQueue
    /// The request shown now, or nil when cleared.
    public private(set) var request: ImageRequest?
    /// Whether the image (or error) for ``request`` has been handed over.
    public private(set) var isLoaded = false
    /// Results that arrived for a request the binding no longer shows, and were dropped.
    public private(set) var staleDropped = 0

    private let placeholder: (@MainActor (ImageRequest) -> Void)?
    private let handler: @MainActor (ImageRequest, Result<Bitmap, any Error>) -> Void
    private var task: ImageTask?
    private var generation: UInt64 = 0

    /// Creates a binding.
    /// - Parameters:
    ///   - pipeline: the pipeline that loads the images.
    ///   - deliveryQueue: `WorkQueue.main` unless a test injects its own queue.
    ///   - placeholder: called by ``show(_:priority:)`` when the image is not cached.
    ///   - handler: receives the request's result, on the main actor.
    ///
    /// ```swift
    /// let avatar = ImageBinding(pipeline: pipeline) { _, result in view.image = try? result.get() }
    /// ```
    public init(
        pipeline: ImagePipeline, deliveryQueue: WorkQueue = .main,
        placeholder: (@MainActor (ImageRequest) -> Void)? = nil,
        handler: @escaping @MainActor (ImageRequest, Result<Bitmap, any Error>) -> Void
    ) {
        self.pipeline = pipeline
        self.deliveryQueue = deliveryQueue
        self.placeholder = placeholder
        self.handler = handler
    }

    isolated deinit { task?.cancel() }

    /// Shows `request`: a cached image is handed over now (and `true` returned); otherwise the placeholder runs and
    /// the request is loaded at `priority`. Showing the request already shown only changes its priority.
    ///
    /// ```swift
    /// if !cell.photo.show(request) { cell.spinner.start() }
    /// ```
    @discardableResult
    public func show(_ request: ImageRequest, priority: WorkPriority = .visible) -> Bool {
        if request == self.request {
            setPriority(priority)
            return isLoaded
        }
        withdraw()
        self.request = request
        if let cached = pipeline.cachedImage(for: request) {
            isLoaded = true
            handler(request, .success(cached))
            return true
        }
        placeholder?(request)
        let expected = generation
        let reference = WeakBindingReference(self)
        task = pipeline.load(request, priority: priority, on: deliveryQueue) { result in
            // On the delivery queue (the main queue), or synchronously from the main queue: the main actor.
            MainActor.assumeIsolated { reference.value?.deliver(result, generation: expected) }
        }
        return isLoaded
    }

    /// Changes the priority of the request shown (visible ↔ prefetch as the cell moves).
    public func setPriority(_ priority: WorkPriority) {
        task?.priority = priority
    }

    /// Stops showing anything: the request is withdrawn and nothing more is handed over.
    public func clear() {
        withdraw()
        request = nil
    }

    private func withdraw() {
        generation &+= 1
        isLoaded = false
        let old = task
        task = nil
        old?.cancel()
    }

    private func deliver(_ result: Result<Bitmap, any Error>, generation expected: UInt64) {
        guard expected == generation, let request else {
            if !(result.failureIs(CancellationError.self)) { staleDropped += 1 }
            return
        }
        isLoaded = true
        task = nil
        handler(request, result)
    }
}

/// Carries the binding into the delivery closure without keeping it alive (a dropped cell cancels its request in
/// `deinit`). Sendable because the binding is (it is `@MainActor`).
private final class WeakBindingReference: Sendable {
    weak let value: ImageBinding?
    init(_ value: ImageBinding) { self.value = value }
}

extension Result {
    fileprivate func failureIs<E: Error>(_: E.Type) -> Bool {
        if case .failure(let error) = self { return error is E }
        return false
    }
}
