import CGtk4
import Foundation
import StocksKit

/// A texture made off the main thread. `@unchecked Sendable`: a GdkTexture is immutable and documented thread-safe,
/// and this wrapper owns one reference, handed to the main thread exactly once (``take()`` on main).
final class TextureHandle: @unchecked Sendable {
    private let texture: OpaquePointer
    /// The texture's pixel bytes (its cost in the chart cache).
    let byteCount: Int
    init(_ texture: OpaquePointer, byteCount: Int) {
        self.texture = texture
        self.byteCount = byteCount
    }
    deinit { g_object_unref(raw(texture)) }
    /// The texture with a new reference for the caller.
    var retained: OpaquePointer { OpaquePointer(g_object_ref(raw(texture)))! }
}

/// Draws stock charts with Cairo into image surfaces (off the main thread: each surface belongs to one thread) and
/// turns them into textures.
enum ChartDrawing {
    /// A sparkline of the last prices: green when up, red when down.
    static func sparkline(_ prices: [Double], width: Int, height: Int, isCancelled: () -> Bool) -> TextureHandle? {
        draw(width: width, height: height) { cr in
            let values = Array(prices.suffix(90))
            guard values.count > 1, !isCancelled() else { return }
            let up = (values.last ?? 0) >= (values.first ?? 0)
            line(cr, values, in: (0, Double(values.count - 1)), width: width, height: height, range: range(values))
            cairo_set_source_rgb(cr, up ? 0.1 : 0.8, up ? 0.6 : 0.15, 0.2)
            cairo_set_line_width(cr, 1.2)
            cairo_stroke(cr)
        }
    }

    /// Raw prices (grey), the smoothed series (blue) and the forecast with its band (orange).
    static func analysis(_ result: AnalysisResult, width: Int, height: Int, isCancelled: () -> Bool) -> TextureHandle? {
        draw(width: width, height: height) { cr in
            let prices = result.prices, smoothed = result.smoothed, forecast = result.forecast.points
            guard prices.count > 1, !isCancelled() else { return }
            // The scale fits the prices, the smoothing and the forecast; a wide band is clipped rather than
            // squashing the chart.
            let all = prices + smoothed + forecast.map(\.value)
            var span = range(all.filter(\.isFinite))
            let pad = (span.1 - span.0) * 0.08
            span = (span.0 - pad, span.1 + pad)
            let total = Double(prices.count + forecast.count - 1)
            cairo_set_source_rgb(cr, 0.97, 0.97, 0.97)
            cairo_paint(cr)
            if !forecast.isEmpty {
                let start = Double(prices.count - 1)
                let xs = forecast.map { start + Double($0.step) }
                let upper = zip(xs, forecast).map { ($0, $1.upper) }, lower = zip(xs, forecast).map { ($0, $1.lower) }
                path(cr, upper + lower.reversed(), total: total, width: width, height: height, range: span)
                cairo_close_path(cr)
                cairo_set_source_rgba(cr, 1, 0.6, 0.1, 0.25)
                cairo_fill(cr)
                path(cr, zip(xs, forecast).map { ($0, $1.value) }, total: total, width: width, height: height, range: span)
                cairo_set_source_rgb(cr, 0.9, 0.45, 0)
                cairo_set_line_width(cr, 1.5)
                cairo_stroke(cr)
            }
            if isCancelled() { return }
            line(cr, prices, in: (0, total), width: width, height: height, range: span)
            cairo_set_source_rgb(cr, 0.6, 0.6, 0.6)
            cairo_set_line_width(cr, 1)
            cairo_stroke(cr)
            line(cr, smoothed, in: (0, total), width: width, height: height, range: span)
            cairo_set_source_rgb(cr, 0.1, 0.35, 0.85)
            cairo_set_line_width(cr, 2)
            cairo_stroke(cr)
        }
    }

    private static func range(_ values: [Double]) -> (Double, Double) {
        let low = values.min() ?? 0, high = values.max() ?? 1
        return high > low ? (low, high) : (low - 1, high + 1)
    }

    private static func line(
        _ cr: OpaquePointer, _ values: [Double], in xRange: (Double, Double), width: Int, height: Int,
        range: (Double, Double)
    ) {
        path(cr, values.enumerated().map { (Double($0.offset), $0.element) }, total: xRange.1, width: width,
             height: height, range: range)
    }

    private static func path(
        _ cr: OpaquePointer, _ points: [(Double, Double)], total: Double, width: Int, height: Int,
        range: (Double, Double)
    ) {
        let margin = 2.0
        for (index, (x, y)) in points.enumerated() where y.isFinite {
            let px = margin + x / max(1, total) * (Double(width) - 2 * margin)
            let py = margin + (1 - (y - range.0) / (range.1 - range.0)) * (Double(height) - 2 * margin)
            if index == 0 { cairo_move_to(cr, px, py) } else { cairo_line_to(cr, px, py) }
        }
    }

    /// An ARGB32 image surface drawn by `body`, as a texture (nil when the surface could not be made).
    private static func draw(width: Int, height: Int, _ body: (OpaquePointer) -> Void) -> TextureHandle? {
        guard let surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, Int32(width), Int32(height)) else {
            return nil
        }
        defer { cairo_surface_destroy(surface) }
        guard cairo_surface_status(surface) == CAIRO_STATUS_SUCCESS, let cr = cairo_create(surface) else { return nil }
        cairo_set_antialias(cr, CAIRO_ANTIALIAS_GOOD)
        body(cr)
        cairo_destroy(cr)
        cairo_surface_flush(surface)
        let stride = Int(cairo_image_surface_get_stride(surface))
        guard let data = cairo_image_surface_get_data(surface) else { return nil }
        let bytes = g_bytes_new(data, gsize(stride * height))
        defer { g_bytes_unref(bytes) }
        // Cairo's ARGB32 is native-endian premultiplied: B, G, R, A in memory on little-endian machines.
        guard let texture = gdk_memory_texture_new(
            Int32(width), Int32(height), GDK_MEMORY_B8G8R8A8_PREMULTIPLIED, bytes, gsize(stride))
        else { return nil }
        return TextureHandle(texture, byteCount: stride * height)
    }
}
