import Foundation
import Lanes
import LanesLists

// Emptying the caches: on log-out, a "clear cache" button, or memory pressure.
extension ImagePipeline {
    /// Removes the image cached for exactly `request` (its URL, size and processors) from the memory cache. The
    /// decoded original and shorter chains of the same URL stay; work in flight is not disturbed (a stage that ends
    /// later caches its result as usual).
    ///
    /// ```swift
    /// pipeline.removeCachedImage(for: ImageRequest(url: photoURL, targetSize: TargetSize(maxWidth: 64)))
    /// ```
    public func removeCachedImage(for request: ImageRequest) {
        memoryCache.removeValue(forKey: request)
    }

    /// Removes every image of `url` — every size and processor chain — from the memory cache, and its fetched bytes
    /// from the disk cache when `includingDisk`. Work in flight is not disturbed.
    ///
    /// ```swift
    /// // The user replaced their photo: the next load fetches it again.
    /// pipeline.removeCachedImages(for: photoURL, includingDisk: true)
    /// ```
    public func removeCachedImages(for url: URL, includingDisk: Bool = false) {
        for request in memoryCache.keysByRecency where request.url == url {
            memoryCache.removeValue(forKey: request)
        }
        if includingDisk { configuration.diskCache?.removeData(forKey: url.absoluteString) }
    }

    /// Empties the memory cache, and the disk cache too when `includingDisk`. Work in flight is not disturbed: it
    /// finishes, is delivered, and caches its result as usual (to stop it as well, cancel its ``ImageTask``s or
    /// call `loader.invalidate()`).
    ///
    /// ```swift
    /// func userDidLogOut() { pipeline.removeAllCachedImages(includingDisk: true) }
    /// ```
    public func removeAllCachedImages(includingDisk: Bool = false) {
        memoryCache.removeAll()
        if includingDisk { configuration.diskCache?.removeAll() }
    }
}
