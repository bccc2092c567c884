import MPDProtocol
import Testing

@Suite struct ResponseTests {
    @Test func keyValueLines() {
        var r = Response()
        r.add("volume", 50)
        r.add("title", "two\nlines")
        #expect(r.text == "volume: 50\ntitle: two lines\n")
    }

    @Test func numbersAndTimesAreWrittenDigitByDigit() {
        var r = Response()
        for value in [0, 7, -42, Int.max, Int.min] { r.add("n", value) }
        r.add("u", UInt64.max)
        #expect(r.text == "n: 0\nn: 7\nn: -42\nn: \(Int.max)\nn: \(Int.min)\nu: \(UInt64.max)\n")
        var times = Response()
        for unix: Int64 in [0, 1_577_934_245, -1, 951_782_400, 4_102_444_800] { times.addTime("t", unix: unix) }
        #expect(times.text == """
            t: 1970-01-01T00:00:00Z
            t: 2020-01-02T03:04:05Z
            t: 1969-12-31T23:59:59Z
            t: 2000-02-29T00:00:00Z
            t: 2100-01-01T00:00:00Z

            """)
        var seconds = Response()
        for value: Int64 in [0, 5, 1500, 61_500, 123_456_789, -500] { seconds.addThousandths("d", value) }
        seconds.addThousandthsRange("Range", 1500, nil)
        seconds.addThousandthsRange("Range", 0, 2005)
        seconds.addThousandthsRange("Range", Int64.min, Int64.max) // the longest formatted line
        #expect(seconds.text == """
            d: 0.000
            d: 0.005
            d: 1.500
            d: 61.500
            d: 123456.789
            d: -0.500
            Range: 1.500-
            Range: 0.000-2.005
            Range: -9223372036854775.808-9223372036854775.807

            """)
    }

    /// Lines written through one `Lines` come out as the same lines added one by one, in order, whatever fills the
    /// buffer part way: many short lines, a value or a key longer than the buffer, a value that is special (a line
    /// break, quoted bytes) between ordinary ones.
    @Test func batchedLinesEqualLinesAddedOneByOne() {
        let long = String(repeating: "v", count: 5000)
        let longKey = String(repeating: "k", count: 3000)
        let cases: [(String, String)] = (0..<300).map { ("key\($0)", "value \($0)") }
            + [("long", long), ("title", "two\nlines"), ("after", "x")] + [(longKey, "1"), ("tail", "end")]
        var oneByOne = Response()
        var batched = Response()
        batched.writeLines { lines in
            for (index, (key, value)) in cases.enumerated() {
                Lines.withUTF8(key) { key in Lines.withUTF8(value) { lines.add(utf8Key: key, utf8: $0) } }
                lines.add("n", index)
                lines.addTime("t", unix: Int64(index) * 86_399)
                lines.addThousandthsRange("Range", Int64(index), index % 2 == 0 ? nil : Int64(index) * 7)
            }
        }
        for (index, (key, value)) in cases.enumerated() {
            oneByOne.add(key, value)
            oneByOne.add("n", index)
            oneByOne.addTime("t", unix: Int64(index) * 86_399)
            oneByOne.addThousandthsRange("Range", Int64(index), index % 2 == 0 ? nil : Int64(index) * 7)
        }
        #expect(batched.bytes.count > 8 * 1024)
        #expect(batched == oneByOne)
        #expect(oneByOne.text.contains("title: two lines\nn: 301\n"))
        #expect(oneByOne.text.contains("\n\(longKey): 1\n"))
        #expect(oneByOne.text.contains("long: \(long)\nn: 300\n"))
        var numbers = Response()
        numbers.writeLines { lines in lines.addThousandths("d", 1500) }
        #expect(numbers.text == "d: 1.500\n")
    }

    @Test func binaryChunkIsFramedByItsLength() {
        var r = Response()
        r.add("size", 3)
        r.addBinary([0x00, 0x0A, 0xFF])
        #expect(r.bytes == Array("size: 3\nbinary: 3\n".utf8) + [0x00, 0x0A, 0xFF, 0x0A])
    }

    @Test func rawBytesPassThrough() {
        var r = Response()
        r.add("message", bytes: [0xFF, 0xC3, 0x28])
        #expect(r.bytes == Array("message: ".utf8) + [0xFF, 0xC3, 0x28, 0x0A])
    }

    @Test func ackLine() {
        var error = ACKError(.arg, "Bad song index")
        error.command = "play"
        #expect(error.line(listIndex: 3) == "ACK [2@3] {play} Bad song index")
        #expect(ACKError.unknownCommand("x").line() == "ACK [5@0] {} unknown command \"x\"")
    }

    @Test func idleNamesInMPDOrder() {
        #expect(IdleSubsystems(name: "PLAYER") == .player)
        #expect(IdleSubsystems(name: "bogus") == nil)
        let flags: IdleSubsystems = [.message, .database, .player]
        #expect(flags.names == ["database", "player", "message"])
    }

    @Test func permissionsParseLikeMPD() throws {
        #expect(try Permission(parsing: "read,add") == [.read, .add])
        #expect(try Permission(parsing: "control") == [.control, .player])
        #expect(try Permission(parsing: "") == [])
        #expect(throws: UnknownPermission(name: " add")) { try Permission(parsing: "read, add") }
    }

    @Test func tagOrderAndMask() {
        #expect(TagName.allCases.count == 35)
        #expect(TagName.allCases.first?.mpdName == "Artist")
        #expect(!TagMask.defaultGlobal.contains(.comment))
        #expect(TagMask.defaultGlobal.tags.count == 34)
        #expect(TagName.albumArtist.fallback == .artist)
    }
}
