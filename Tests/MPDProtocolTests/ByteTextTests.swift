import Testing
@testable import MPDProtocol

/// Arguments keep the client's bytes (`ByteText`): decoded and written back, any byte string comes back as it was,
/// and two different byte strings never decode to one string.
@Suite struct ByteTextTests {
    static let samples: [[UInt8]] = [
        Array("plain".utf8), Array("日本語 é".utf8), [0xFF], [0xFE], [0x63, 0x61, 0x66, 0xE9],
        [0xC3], [0xE2, 0x82], [0xC0, 0xAF], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xF8, 0x88],
        Array("a\u{10FFFF}b".utf8), Array("\u{10FF00}".utf8), [0xF4, 0x8F, 0xBC], [0x80, 0x41, 0xBF],
    ]

    @Test func roundTrips() {
        for bytes in Self.samples {
            #expect(ByteText.encode(ByteText.decode(bytes).utf8) == bytes, "\(bytes)")
        }
    }

    @Test func differentBytesStayDifferent() {
        let decoded = Self.samples.map(ByteText.decode)
        #expect(Set(decoded).count == Self.samples.count)
        #expect(ByteText.decode([0xFF]) != ByteText.decode([0xFE]))
    }

    @Test func validTextIsUnchanged() {
        #expect(ByteText.decode(Array("日本語 é".utf8)) == "日本語 é")
        #expect(Request(command: "save", rawArguments: [[0xFF]]).arguments[0] != "\u{FFFD}")
    }

    @Test func responsesAndACKsWriteTheBytes() {
        var response = Response()
        response.add("playlist", ByteText.decode([0x63, 0xE9, 0x0A, 0xFF]))
        #expect(response.bytes == Array("playlist: c".utf8) + [0xE9, 0x20, 0xFF, 0x0A])
    }
}
