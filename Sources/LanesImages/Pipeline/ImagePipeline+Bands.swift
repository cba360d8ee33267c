import Foundation
import Lanes
import LanesLists

// Processor chains in bands: a request whose every processor has a row stage (``Resize``, ``GaussianBlur``,
// ``TiltShift``, ``Greyscale``) is one stage after its fetch, which decodes the fetched body a few rows at a time
// straight through the resize to the target size and the processors' row stages (``ProcessorRows``, the chain
// `lanes-image` writes from) into the result: neither the decoded original nor any intermediate bitmap is ever whole.
extension ImagePipeline {
    /// The banded stage of `request`, or nil when it takes the staged path (decode, then each processor on a whole
    /// bitmap): bands are off (``ImagePipelineConfiguration/processesInBands``), a processor has no row stage, the
    /// decoder is not the plain ``ImageDecoder``, a thumbnail cache serves the request, or a prefix of its chain (the
    /// decode included) is in flight or in the memory cache, whose result the staged path then joins or starts from.
    func bandedWork(for request: ImageRequest, times: LockedValue<Double>) -> WorkItem<Bitmap>? {
        guard configuration.processesInBands, !request.processors.isEmpty,
              ProcessorRows.canRun(request.processors),
              let decoder = configuration.decoder as? ImageDecoder, thumbnails(for: request) == nil,
              !hasPrefixAvailable(request) else { return nil }
        let size = request.targetSize, processors = request.processors, maxPixels = configuration.maxPixels
        let counters = self.counters
        return run(
            after: fetchStage(for: request), label: request.finalKey.label, times: times,
            cost: { body in Self.bandedCost(of: body, size: size, processors: processors, decoder: decoder,
                                            maxPixels: maxPixels) },
            on: decodeQueue
        ) { body, context in
            try Self.processInBands(body, size: size, processors: processors, decoder: decoder, maxPixels: maxPixels,
                                    counters: counters, isCancelled: { context.isCancelled })
        }
    }

    /// Whether a prefix of `request`'s chain — the decode, `[a]` of `[a, b]` — is in flight, or in the memory cache
    /// when the request reads it.
    private func hasPrefixAvailable(_ request: ImageRequest) -> Bool {
        var prefix = request
        prefix.processors = []
        for next in request.processors {
            if bitmaps.priority(of: prefix.finalKey) != nil { return true }
            if request.cachePolicy.contains(.readsMemory), memoryCache[prefix] != nil { return true }
            prefix.processors.append(next)
        }
        return false
    }

    /// The header of `body` when it decodes in rows for `decoder`: a PNG or JPEG, upright (an Exif orientation
    /// needs the whole image), and 8-bit unless the decoder makes everything RGBA8 (a 16-bit image the decoder
    /// keeps deep is decoded whole, as its first processor then makes it 8-bit).
    static func rowHeader(_ body: FetchedBody, decoder: ImageDecoder) -> ImageInfo? {
        guard let info = try? decoder.probe(body.data), info.format == .png || info.format == .jpeg,
              info.orientation == .up, !decoder.keepsStoredLayout || info.storedLayout.bytesPerSample == 1 else {
            return nil
        }
        return info
    }

    /// The bytes a banded stage holds at its peak besides the body: the result, the decoder's rows, the resize's
    /// ring and each processor stage's rings and window. A body whose header rules bands out costs what its whole
    /// decode and processors do. Zero when the header cannot be read or is over the limit (the stage then fails
    /// before allocating).
    static func bandedCost(of body: FetchedBody, size: TargetSize?, processors: [any ImageProcessor],
                           decoder: ImageDecoder, maxPixels: Int) -> Int {
        guard let info = rowHeader(body, decoder: decoder), let pixels = info.pixelCount, pixels <= maxPixels else {
            // Decoded whole (its cost counts the body), then each processor's output beside its input.
            let decode = decodeCost(of: body.data, size: size, maxPixels: maxPixels)
            guard decode > 0, let info = try? decoder.probe(body.data) else { return decode }
            let target = ImageDecoder.storedTarget(info, targetSize: size)
            return decode + 2 * largestStep(of: processors, width: target.width, height: target.height)
        }
        let target = ImageDecoder.storedTarget(info, targetSize: size)
        let output = ProcessorRows.outputSize(of: processors, width: target.width, height: target.height)
        // The decode's own peak is its result at the target size plus its rows and ring; the processors' stages add
        // their rings, and the result is the chain's output.
        let decode = ImageDecoder.workingSetBytes(for: info, targetSize: size) - target.width * target.height * 4
        return body.data.count + decode + output.width * output.height * 4
            + ProcessorRows.heldBytes(of: processors, width: target.width, height: target.height)
    }

    /// The bytes of the largest RGBA8 image along `processors` from a `width` x `height` one.
    private static func largestStep(of processors: [any ImageProcessor], width: Int, height: Int) -> Int {
        var size = (width: width, height: height), largest = width * height
        for processor in processors {
            size = ProcessorRows.outputSize(of: [processor], width: size.width, height: size.height)
            largest = max(largest, size.width * size.height)
        }
        return largest * 4
    }

    /// The chain's result from the fetched body: in rows when the header allows, else (a WebP, a rotated photo, a
    /// 16-bit PNG kept deep) decoded whole from the same bytes and processed whole, as the staged path does. A body
    /// already decoded as it arrived (previews) is processed from that image.
    static func processInBands(
        _ body: FetchedBody, size: TargetSize?, processors: [any ImageProcessor], decoder: ImageDecoder,
        maxPixels: Int, counters: Counters<ImagePipelineStatistics>, isCancelled: @escaping @Sendable () -> Bool
    ) throws -> Bitmap {
        // The processors count as run once their input is there (as staged steps count when they start).
        let processorsRun = { for _ in processors { counters.count(\.processorRuns) } }
        if let arrived = body.arrived, arrived.serves(size, decoder: decoder) {
            let image = try arrived.image(for: size)
            processorsRun()
            return try ProcessorChain(processors).process(image, isCancelled: isCancelled)
        }
        counters.count(\.decodes)
        guard let info = rowHeader(body, decoder: decoder) else {
            let decoded = try decoder.decode(body.data, targetSize: size, maxPixels: maxPixels)
            processorsRun()
            return try ProcessorChain(processors).process(decoded, isCancelled: isCancelled)
        }
        return try body.data.withUnsafeBytes { bytes in
            let target = ImageDecoder.storedTarget(info, targetSize: size)
            let rows = try ImageRowDecoder(bytes: bytes, owned: nil, fileDescriptor: -1,
                                           scaleDenominator: ImageDecoder.decodeDenominator(info, target: target),
                                           maxPixels: maxPixels)
            counters.count(\.bandedChains)
            processorsRun()
            var chain: any RowSource = rows
            if target.width != rows.width || target.height != rows.height {
                chain = try ResizeRows(rows, width: target.width, height: target.height, isCancelled: isCancelled)
            }
            chain = try ProcessorRows.chain(over: chain, processors, isCancelled: isCancelled)
            // A decoder that keeps the stored layout gives a grey image back grey, as the whole path's processors do.
            if decoder.keepsStoredLayout && info.storedLayout.eightBit != chain.layout {
                chain = ConvertedRows(chain, to: info.storedLayout.eightBit)
            }
            return try Bitmap(readingAllRowsOf: chain, isCancelled: isCancelled)
        }
    }
}
