import Foundation

/// Entry point of the `stocks` terminal app (placeholder until the app lands).
public enum StocksMain {
    public static func run(_ arguments: [String]) -> Int32 {
        print("stocks: coming soon")
        return 0
    }
}
