import CGtk4
import Foundation
import Lanes
import LanesAppSupport

/// Saves what `widget` shows as a PNG, rendered by the window's own renderer (the same path as the screen), and
/// beside it `PATH.cells.json`: each visible photo cell's row and its picture's bounds in the PNG's coordinates.
@MainActor
enum Screenshot {
    static func save(_ window: Widget, to path: String, cells: [PhotoCell]) throws {
        let width = gtk_widget_get_width(window), height = gtk_widget_get_height(window)
        let paintable = gtk_widget_paintable_new(window)
        defer { g_object_unref(raw(paintable)) }
        let snapshot = gtk_snapshot_new()
        gdk_paintable_snapshot(paintable, gcast(raw(snapshot)), Double(width), Double(height))
        guard let node = gtk_snapshot_free_to_node(snapshot) else { throw OptionError("screenshot: nothing drawn") }
        defer { gsk_render_node_unref(node) }
        guard let renderer = gtk_native_get_renderer(gcast(raw(window))),
            let texture = gsk_renderer_render_texture(renderer, node, nil)
        else { throw OptionError("screenshot: the renderer made no texture") }
        defer { g_object_unref(raw(texture)) }
        guard gdk_texture_save_to_png(texture, path) != 0 else {
            throw OptionError("screenshot: cannot write \(TerminalText.sanitized(path))")
        }
        var entries: [[String: Int]] = []
        for cell in cells {
            guard let row = cell.row else { continue }
            var bounds = graphene_rect_t()
            guard gtk_widget_compute_bounds(cell.picture, window, &bounds) != 0 else { continue }
            entries.append([
                "row": row, "x": Int(bounds.origin.x.rounded()), "y": Int(bounds.origin.y.rounded()),
                "width": Int(bounds.size.width.rounded()), "height": Int(bounds.size.height.rounded()),
            ])
        }
        let data = try JSONSerialization.data(withJSONObject: ["cells": entries], options: [.sortedKeys])
        try data.write(to: URL(fileURLWithPath: path + ".cells.json"))
    }

    /// The GSK renderer's type name (GskGLRenderer, GskCairoRenderer, ...).
    static func rendererName(_ window: Widget) -> String {
        guard let renderer = gtk_native_get_renderer(gcast(raw(window))) else { return "none" }
        let instance: UnsafeMutablePointer<GTypeInstance> = gcast(raw(renderer))
        return String(cString: g_type_name(instance.pointee.g_class.pointee.g_type))
    }
}
