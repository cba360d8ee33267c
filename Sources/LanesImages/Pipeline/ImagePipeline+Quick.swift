import Lanes
import LanesLists

extension ImagePipeline {
    /// The pipeline's quick tier as a list loader delivering on the main queue: for each request, a quick rendering
    /// of its image (``QuickImageDecoding``: a JPEG at 1/8 by DCT scaling, a PNG sampled as it decodes, other formats
    /// at a quarter of the target; the request's processors are not run), at most the request's target size. Bind it
    /// beside ``loader`` and a cell shows the quick rendering while the full image loads, then the full one, never
    /// the reverse and never another row's; `ListModel.connect(to:quick:key:binding:)` asks for it for the rows
    /// that cannot get their full image in time.
    ///
    /// The quick rendering shares the request's fetch (the bytes are fetched once for both) and runs on the decode
    /// threads; it has a cache of its own (an eighth of ``ImagePipelineConfiguration/memoryCacheLimit``), so it never
    /// answers a request for the full image.
    ///
    /// ```swift
    /// let photo = pipeline.loader.binding(quick: pipeline.quickLoader, placeholder: { _ in view.image = nil }) {
    ///     _, result in view.image = try? result.get()   // the quick rendering first, then the full image
    /// }
    /// photo.show(ImageRequest(url: url, targetSize: TargetSize(maxWidth: 160, maxHeight: 120)), quick: true)
    /// ```
    public var quickLoader: ContentLoader<ImageRequest, Bitmap> { quickLoader(deliveringOn: .main) }

    /// The quick tier's loader delivering on `queue` (one per queue, made on first use; see ``quickLoader``).
    ///
    /// ```swift
    /// let quick = pipeline.quickLoader(deliveringOn: testQueue)
    /// ```
    public func quickLoader(deliveringOn queue: WorkQueue) -> ContentLoader<ImageRequest, Bitmap> {
        quickLoaders.withLock { loaders in
            if let loader = loaders[ObjectIdentifier(queue)] { return loader }
            let costs = quickCosts
            let loader = ContentLoader<ImageRequest, Bitmap>(
                name: "quick image", deliveryQueue: queue, cache: quickCache, costs: costs,
                threads: decodeQueue.maxConcurrency
            ) { [unowned self] request in
                let times = LockedValue(0.0)
                let stage = quickStage(for: request, times: times)
                stage.onFinishInline { result in
                    if case .success = result { costs.record(seconds: times.withLock { $0 }) }
                }
                return stage
            }
            loaders[ObjectIdentifier(queue)] = loader
            return loader
        }
    }

    /// A quick rendering of `request`: its fetch stage (shared with the full image's), then a quick decode on the
    /// decode threads once its bytes fit in the budget.
    private func quickStage(for request: ImageRequest, times: LockedValue<Double>) -> WorkItem<Bitmap> {
        let size = request.targetSize, quickSize = ImageDecoder.quickTarget(size)
        let decoder = configuration.decoder, maxPixels = configuration.maxPixels
        let counters = self.counters
        let fetch = fetchStage(for: request)
        return run(
            after: fetch, label: "quick " + request.finalKey.label, times: times,
            cost: { body in
                let cost = Self.decodeCost(of: body.data, size: quickSize, maxPixels: maxPixels)
                return cost == 0 ? 0 : cost + body.data.count
            }, on: decodeQueue
        ) { body, _ in
            counters.count(\.quickDecodes)
            return try decoder.quickRendering(body.data, targetSize: size, maxPixels: maxPixels)
        }
    }
}
