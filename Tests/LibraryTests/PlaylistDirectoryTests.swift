import Foundation
import Glibc
import Library
import PlayerCore
import ServerPorts
import Testing

/// Stored playlists as m3u files, readable and writable by MPD.
@Suite struct PlaylistDirectoryTests {
    let root: String
    let directory: PlaylistDirectory

    init() throws {
        root = NSTemporaryDirectory() + "nosignal-playlists-\(UUID().uuidString)"
        directory = PlaylistDirectory(path: root, musicDirectory: "/music", maximumLength: 4)
    }

    func contents(_ name: String) throws -> String {
        try String(contentsOfFile: root + "/" + name + ".m3u", encoding: .utf8)
    }

    @Test func saveWritesOneURIPerLine() throws {
        try directory.save("p", uris: ["a/b.flac", "http://x/y"], mode: .create)
        #expect(try contents("p") == "a/b.flac\nhttp://x/y\n")
        #expect(throws: PlayerError.playlistExists("Playlist already exists")) {
            try directory.save("p", uris: [], mode: .create)
        }
        try directory.save("p", uris: ["c"], mode: .append)
        #expect(try directory.load("p") == ["a/b.flac", "http://x/y", "c"])
        try directory.save("p", uris: ["d"], mode: .replace)
        #expect(try directory.load("p") == ["d"])
        #expect(try directory.list().map(\.name) == ["p"])
    }

    @Test func readsFilesWrittenByOthers() throws {
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        try "#EXTM3U\r\n/music/a/b.flac\r\n\r\n# comment\nhttp://radio/x\nrel/c.mp3\n/elsewhere/d.mp3\n"
            .write(toFile: root + "/m.m3u", atomically: true, encoding: .utf8)
        #expect(try directory.load("m") == ["a/b.flac", "http://radio/x", "rel/c.mp3", "/elsewhere/d.mp3"])
    }

    /// Item 14 of issue 34: MPD 0.24 reads a stored playlist through the m3u/extm3u plugins
    /// (`playlist_mapper_open`), so `#EXTINF` gives the next song its duration and `Name`; entries are translated
    /// from the music directory's root (a path inside it is a database song, one outside it loads nothing).
    @Test func entriesKeepWhatExtInfSays() throws {
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        try "#EXTM3U\r\n#EXTINF:42,Band - Song\r\n/music/a/b.flac\r\n#EXTINF:-5,\r\nhttp://radio/x\n./rel/../c.mp3\n"
            .appending("/elsewhere/d.mp3\n").write(toFile: root + "/m.m3u", atomically: true, encoding: .utf8)
        let entries = try directory.readEntries("m")
        #expect(entries.map(\.song.uri) == ["/music/a/b.flac", "http://radio/x", "c.mp3", "/elsewhere/d.mp3"])
        #expect(entries.map(\.location) == [.database("a/b.flac"), .url, .database("c.mp3"), .unavailable])
        #expect(entries[0].song.duration == 42 && entries[0].song.tags == [Song.Tag("Name", "Band - Song")])
        #expect(entries[1].song.duration == nil && entries[2].song.tags.isEmpty)
        #expect(throws: PlayerError.noSuchPlaylist) { try directory.readEntries("none") }
    }

    /// Line ends as other programs write them: `\r\n`, a stray `\r` before it, a last line without an end, UTF-8
    /// and bytes that are not UTF-8 (kept as replacement characters, as the text reader kept them).
    @Test func lineEndsAndBytes() throws {
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        try Data("a\r\r\n\n\n#x\nÉ/ü.flac\r\nb\u{FF}c\r\n".utf8 + [0x64, 0xFF, 0x0D, 0x0D])
            .write(to: URL(fileURLWithPath: root + "/e.m3u"))
        #expect(try directory.load("e") == ["a", "É/ü.flac", "b\u{FF}c", "d\u{FFFD}\r"])
    }

    @Test func namesAndErrors() throws {
        #expect(throws: PlayerError.badPlaylistName) { try directory.save("a/b", uris: [], mode: .create) }
        #expect(throws: PlayerError.badPlaylistName) { try directory.save("", uris: [], mode: .create) }
        #expect(throws: PlayerError.noSuchPlaylist) { try directory.load("nope") }
        #expect(throws: PlayerError.noSuchPlaylist) { try directory.remove("nope") }
        #expect(throws: PlayerError.playlistTooLarge) {
            try directory.save("big", uris: ["1", "2", "3", "4", "5"], mode: .create)
        }
        try directory.save("a", uris: ["1"], mode: .create)
        try directory.save("b", uris: ["2"], mode: .create)
        #expect(throws: PlayerError.playlistExists("Playlist exists already")) { try directory.rename("nope", to: "b") }
        #expect(throws: PlayerError.noSuchPlaylist) { try directory.rename("nope", to: "c") }
        try directory.rename("a", to: "c")
        #expect(Set(try directory.list().map(\.name)) == ["b", "c"])
        try directory.edit("c", createIfMissing: false) { $0 + ["x"] }
        #expect(try directory.load("c") == ["1", "x"])
        #expect(throws: PlayerError.noSuchPlaylist) { try directory.edit("z", createIfMissing: false) { $0 } }
        try directory.remove("c")
        #expect(try directory.list().map(\.name) == ["b"])
    }

    /// `spl_valid_name` of MPD 0.24.13: a name that is not UTF-8 (by MPD's check) is refused, a carriage return is
    /// allowed again (0.24.11 dropped that check), a newline is not.
    @Test func namesByMPD0_24_13sRules() throws {
        for name in ["\u{10FFFF}", "caf\u{10FFE9}", "a\nb", "a/b", ""] {
            #expect(throws: PlayerError.badPlaylistName, "\(name.debugDescription)") {
                try directory.save(name, uris: [], mode: .create)
            }
        }
        try directory.save("a\rb", uris: ["x"], mode: .create)
        #expect(try directory.load("a\rb") == ["x"])
        // C0 80 (an overlong NUL) passes MPD's structural check.
        try directory.save("\u{10FFC0}\u{10FF80}", uris: [], mode: .create)
        #expect(Set(try directory.list().map(\.name)).count == 2)
    }

    /// `listplaylists` in the order the directory gives its entries (MPD's `ListPlaylistFiles` reads it with
    /// `readdir` and does not sort), here compared with what `readdir` gives.
    @Test func listIsInTheDirectorysOrder() throws {
        let names = ["kiwi", "apple", "mango", "banana", "cherry", "date", "fig", "grape", "lemon", "plum"]
        for name in names { try directory.save(name, uris: [], mode: .create) }
        var order: [String] = []
        let handle = try #require(opendir(root))
        while let entry = readdir(handle) {
            let file = withUnsafePointer(to: entry.pointee.d_name) {
                $0.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
            }
            if file.hasSuffix(".m3u") { order.append(String(file.dropLast(4))) }
        }
        closedir(handle)
        #expect(Set(order) == Set(names))
        // The premise: this directory's order is not the names' sorted order.
        #expect(order != order.sorted())
        #expect(try directory.list().map(\.name) == order)
    }
}

/// MPD's state-file format, both ways.
@Suite struct StateFileTests {
    static let mpdFile = """
        sw_volume: 50
        audio_device_state:1:null
        state: stop
        current: 1
        random: 0
        repeat: 1
        single: 2
        consume: 0
        crossfade: 3
        mixrampdb: 0.000000
        mixrampdelay: -1.000000
        lastloadedplaylist: mix
        playlist_begin
        0:dir1/a.mp3
        Prio: 5
        1:dir1/b.mp3
        song_begin: http://host/x.mp3
        Range: 500-1500
        Time: 2.037000
        Artist: Foo
        song_end
        playlist_end

        """

    @Test func parsesWhatMPDWrites() {
        let state = StateFile.parse(Self.mpdFile)
        #expect(state.volume == 50)
        #expect(state.options.repeat && !state.options.random)
        #expect(state.options.single == .oneshot)
        #expect(state.options.crossfade == 3)
        #expect(state.lastLoadedPlaylist == "mix")
        // MPD 0.24 writes the line empty when no playlist was loaded; MPD 0.23 does not write it.
        #expect(StateFile.parse("lastloadedplaylist: \nplaylist_begin\nplaylist_end\n").lastLoadedPlaylist == nil)
        #expect(state.queue.currentPosition == 1)
        #expect(state.queue.entries.map(\.song.uri) == ["dir1/a.mp3", "dir1/b.mp3", "http://host/x.mp3"])
        #expect(state.queue.entries.map(\.priority) == [0, 5, 0])
        #expect(state.queue.entries[2].range == Queue.ClosedRangeSeconds(start: 0.5, end: 1.5))
        #expect(state.queue.entries[2].song.tags == [Song.Tag("Artist", "Foo")])
        #expect(state.queue.entries[2].song.duration == 2.037)
    }

    @Test func writesWhatMPDReads() {
        let state = StateFile.parse(Self.mpdFile)
        let expected = Self.mpdFile.replacingOccurrences(of: "audio_device_state:1:null\n", with: "")
        #expect(StateFile.render(state) == expected)
    }

    @Test func saverWritesAtomicallyAndRestores() throws {
        let path = NSTemporaryDirectory() + "nosignal-state-\(UUID().uuidString)/state"
        let saver = StateFileSaver(path: path)
        let saved = StateFile.parse(Self.mpdFile)
        saver.attach { saved }
        saver.saveNow()
        #expect(saver.load() == saved)
        #expect(!FileManager.default.fileExists(atPath: path + ".tmp"))
    }
}
