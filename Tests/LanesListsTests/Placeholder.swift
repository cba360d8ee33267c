import Testing
@Test func listsPlaceholder() { #expect(Bool(true)) }
