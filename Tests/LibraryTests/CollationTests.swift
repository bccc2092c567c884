@testable import Library
import Testing

/// The byte-table comparison of ASCII names gives exactly `CollationKey`'s order (which approximates MPD's ICU
/// collation): every pair of a set of names with letters of both cases, digits, punctuation, blanks and control
/// characters, and random ones.
@Suite struct CollationTests {
    static let names = [
        "", "a", "A", "b", "B", "ab", "aB", "Ab", "a b", "a-b", "a_b", "a.b", "a,b", "a!b", "a'b", "a\"b", "(a)", "[a]",
        "01 Intro.flac", "1 Intro.flac", "02 Intro.flac", "10 Intro.flac", "1", "9", "10", "-1", "+1", "~", "\t", "\u{7F}",
        "\u{01}", "track 2", "Track 2", "track 10", "Zed", "zed", "zebra", "a/b", "a\\b", "a&b", "a#b", "x%y", "#1",
    ]

    @Test func asciiOrderIsTheCollationKeyOrder() {
        var generator = SystemRandomNumberGenerator()
        var texts = Self.names
        for _ in 0..<300 {
            let length = Int.random(in: 0...8, using: &generator)
            texts.append(String(decoding: (0..<length).map { _ in UInt8.random(in: 1...127, using: &generator) }, as: UTF8.self))
        }
        for a in texts {
            for b in texts {
                #expect(CollationKey.asciiPrecedes(Array(a.utf8), Array(b.utf8)) == (CollationKey(a) < CollationKey(b)),
                        "\(a.debugDescription) < \(b.debugDescription)")
            }
        }
        #expect(CollationKey.sortedIndices(texts).map { texts[$0] } == texts.sorted { CollationKey($0) < CollationKey($1) })
    }

    /// A list with a non-ASCII name is ordered by the keys themselves.
    @Test func nonASCIIListsUseTheKeys() {
        let texts = ["Ágætis", "Agaetis", "agætis", "Zebra", "ábc"]
        #expect(CollationKey.sortedIndices(texts).map { texts[$0] } == texts.sorted { CollationKey($0) < CollationKey($1) })
    }
}
