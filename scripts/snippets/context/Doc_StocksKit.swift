// What the StocksKit doc comments' examples assume: a price series and a forecast of it.
let prices: [Double] = [10, 11, 12, 11, 13, 14, 13, 15, 16, 15, 17, 18, 17, 19, 20, 19, 21, 22, 21, 23, 24, 23]
let series = try! BundledStocks.load().series[0]
let forecast = try! HoltForecast.forecast(prices, horizon: 3)
let row = ChartRenderer(width: 40, height: 4).render(prices: prices).rows[0]
