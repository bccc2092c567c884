import MPDProtocol
import Testing

@Suite struct ResponseTests {
    @Test func keyValueLines() {
        var r = Response()
        r.add("volume", 50)
        r.add("title", "two\nlines")
        #expect(r.text == "volume: 50\ntitle: two lines\n")
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
