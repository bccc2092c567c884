import MPDProtocol
@testable import MPDServer
import PlayerCore
import PlayerRuntime
import Testing

/// The queue commands, in memory. Expected texts come from MPD 0.23.12.
@Suite struct QueueCommandsTests {
    static func client(_ urls: Int = 0) async -> TestSession {
        let c = await TestSession(server: TestSession.server())
        for i in 0..<urls { await c.send("add http://host/\(i).mp3") }
        return c
    }

    @Test func addURLsAndListThem() async {
        let c = await Self.client(2)
        #expect(await c.send("addid https://host/x.ogg 1") == "Id: 3\nOK\n")
        #expect(await c.send("playlist") == """
            0:file: http://host/0.mp3
            1:file: https://host/x.ogg
            2:file: http://host/1.mp3
            OK

            """)
        #expect(await c.send("playlistinfo 1") == "file: https://host/x.ogg\nPos: 1\nId: 3\nOK\n")
        #expect(await c.send("playlistid 2") == "file: http://host/1.mp3\nPos: 2\nId: 2\nOK\n")
        #expect(await c.send("playlistinfo 3") == "OK\n")
        #expect(await c.send("playlistinfo 4") == "ACK [2@0] {playlistinfo} Bad song index\n")
        #expect(await c.send("playlistid 9") == "ACK [50@0] {playlistid} No such song\n")
        let status = await c.send("status")
        #expect(status.contains("playlist: 5\nplaylistlength: 3\n"))
    }

    @Test func addErrorsAsMPD() async {
        let c = await Self.client()
        #expect(await c.send("add foo") == "ACK [50@0] {add} No database\n")
        #expect(await c.send("addid foo") == "ACK [50@0] {addid} No database\n")
        #expect(await c.send("add http://x 1") == "ACK [2@0] {add} Number too large: 1\n")
        #expect(await c.send("addid http://x +0") == "ACK [55@0] {addid} No current song\n")
        #expect(await c.send("add gopher://x") == "ACK [2@0] {add} Unsupported URI scheme\n")
        #expect(await c.send("add /etc/passwd") == "ACK [4@0] {add} Access to local files via TCP is not allowed\n")
        #expect(await c.send("addid file:///etc/passwd") == "ACK [4@0] {addid} Access to local files via TCP is not allowed\n")
    }

    @Test func editErrorsAsMPD() async {
        let c = await Self.client(3)
        #expect(await c.send("delete 10") == "ACK [2@0] {delete} Bad song index\n")
        #expect(await c.send("deleteid 99") == "ACK [50@0] {deleteid} No such song\n")
        #expect(await c.send("swap 0 9") == "ACK [2@0] {swap} Bad song index\n")
        #expect(await c.send("move 1: 0") == "ACK [2@0] {move} Open-ended range not supported\n")
        #expect(await c.send("move 1:2 3") == "ACK [2@0] {move} Number too large: 3\n")
        #expect(await c.send("move 0 +1") == "ACK [55@0] {move} No current song\n")
        #expect(await c.send("prio 256 1") == "ACK [2@0] {prio} Number too large: 256\n")
        #expect(await c.send("prio 5 9") == "ACK [2@0] {prio} Bad song index\n")
        #expect(await c.send("rangeid 1 1:0.5") == "ACK [2@0] {rangeid} Bad range\n")
        #expect(await c.send("rangeid 1 x") == "ACK [2@0] {rangeid} Bad range\n")
        #expect(await c.send("rangeid 99 1:") == "ACK [50@0] {rangeid} No such song\n")
        #expect(await c.send("addtagid 1 foo X") == "ACK [2@0] {addtagid} Unknown tag type: foo\n")
        #expect(await c.send("cleartagid 7 bar") == "ACK [2@0] {cleartagid} Unknown tag type: bar\n")
        #expect(await c.send("addtagid 7 artist X") == "ACK [50@0] {addtagid} No such song\n")
    }

    @Test func editsAndPlchanges() async {
        let c = await Self.client(4)  // version 5
        #expect(await c.send("move 0 3") == "OK\n")  // version 6, all four items touched at 5
        #expect(await c.send("swapid 2 3") == "OK\n")  // version 7
        #expect(await c.send("plchangesposid 6") == "cpos: 0\nId: 3\ncpos: 1\nId: 2\nOK\n")
        #expect(await c.send("prioid 7 4") == "OK\n")
        #expect(await c.send("playlistid 4") == "file: http://host/3.mp3\nPos: 2\nId: 4\nPrio: 7\nOK\n")
        #expect(await c.send("rangeid 4 1.5:3") == "OK\n")
        #expect(await c.send("playlistinfo 2") ==
                "file: http://host/3.mp3\nRange: 1.500-3.000\nTime: 2\nduration: 1.500\nPos: 2\nId: 4\nPrio: 7\nOK\n")
        #expect(await c.send("addtagid 4 artist Someone") == "OK\n")
        #expect(await c.send("plchanges 10") == "OK\n")
        #expect(await c.send("plchanges 9 2:3") ==
                "file: http://host/3.mp3\nRange: 1.500-3.000\nArtist: Someone\nTime: 2\nduration: 1.500\nPos: 2\nId: 4\nPrio: 7\nOK\n")
        #expect(await c.send("delete 0:2") == "OK\n")
        #expect(await c.send("playlist") == "0:file: http://host/3.mp3\n1:file: http://host/0.mp3\nOK\n")
        #expect(await c.send("clear") == "OK\n")
        #expect(await c.send("playlist") == "OK\n")
    }

    @Test func playlistFindAndSearch() async {
        let c = await Self.client(3)
        await c.send("addtagid 1 artist Foo")
        await c.send("addtagid 2 artist foobar")
        #expect(await c.send("playlistfind artist Foo") == "file: http://host/0.mp3\nArtist: Foo\nPos: 0\nId: 1\nOK\n")
        #expect(await c.send("playlistsearch artist foo") == """
            file: http://host/0.mp3
            Artist: Foo
            Pos: 0
            Id: 1
            file: http://host/1.mp3
            Artist: foobar
            Pos: 1
            Id: 2
            OK

            """)
        #expect(await c.send("playlistfind \"(artist == '')\"") == "file: http://host/2.mp3\nPos: 2\nId: 3\nOK\n")
        #expect(await c.send("playlistfind \"(AlbumArtist == 'Foo')\"") ==
                "file: http://host/0.mp3\nArtist: Foo\nPos: 0\nId: 1\nOK\n")
        #expect(await c.send("playlistsearch \"(artist =~ '^F.*r$')\"") ==
                "file: http://host/1.mp3\nArtist: foobar\nPos: 1\nId: 2\nOK\n")
        #expect(await c.send("playlistfind \"(file starts_with 'http://host/2')\"") ==
                "file: http://host/2.mp3\nPos: 2\nId: 3\nOK\n")
        #expect(await c.send("playlistfind foo bar") == "ACK [2@0] {playlistfind} Unknown filter type\n")
        await c.send("prioid 9 1")
        await c.send("prioid 3 3")
        // 0.24: sort by priority (lowest first, `-` reverses), then the window.
        #expect(await c.send("playlistsearch \"(file contains 'host')\" sort -prio window 0:2") ==
                "file: http://host/0.mp3\nArtist: Foo\nPos: 0\nId: 1\nPrio: 9\nfile: http://host/2.mp3\nPos: 2\nId: 3\nPrio: 3\nOK\n")
        #expect(await c.send("playlistfind \"(prio >= 5)\"") == "file: http://host/0.mp3\nArtist: Foo\nPos: 0\nId: 1\nPrio: 9\nOK\n")
        #expect(await c.send("playlistfind \"(file contains 'host')\" window 4:5") ==
                "ACK [2@0] {playlistfind} Bad song index\n")
    }

    @Test func relativePositionsNeedACurrentSong() async {
        let c = await Self.client()
        let entries = (0..<4).map { SavedQueue.Entry(song: Song(uri: "http://host/\($0).mp3")) }
        _ = try? c.server.store.send(.restore(SavedState(volume: 100, queue: SavedQueue(entries: entries,
                                                                                    currentPosition: 1))))
        #expect(await c.send("addid http://new +0") == "Id: 5\nOK\n")
        #expect(await c.send("move 1 +0") == "ACK [2@0] {move} Cannot move current song relative to itself\n")
        #expect(await c.send("moveid 5 -0") == "OK\n")
        #expect(await c.send("playlist") == """
            0:file: http://host/0.mp3
            1:file: http://new
            2:file: http://host/1.mp3
            3:file: http://host/2.mp3
            4:file: http://host/3.mp3
            OK

            """)
        let status = await c.send("status")
        #expect(status.contains("song: 2\nsongid: 2\nnextsong: 3\nnextsongid: 3\n"))
        #expect(await c.send("currentsong") == "file: http://host/1.mp3\nPos: 2\nId: 2\nOK\n")
    }
}
