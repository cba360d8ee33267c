import Foundation
import StocksApp

exit(StocksMain.run(CommandLine.arguments))
