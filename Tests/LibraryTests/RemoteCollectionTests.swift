import Dispatch
import Foundation
import GRDB
@testable import Library
import Logging
import MPDProtocol
import PlayerCore
import ServerPorts
import Synchronization
import Testing

/// Remote collections (the NetEase sync's side of the database) on a real SQLite file, next to a local library
/// scanned from a temporary music directory.
@Suite struct RemoteCollectionTests {
    /// Reads `.flac` files written as `Key=Value` lines, so local songs need no real audio.
    struct TextInspector: AudioFileInspector {
        var suffixes: Set<String> { ["flac"] }
        func inspect(path: String, includePicture: Bool) throws -> InspectedFile {
            let text = try String(contentsOfFile: path, encoding: .utf8)
            let tags = text.split(separator: "\n").compactMap { line -> Song.Tag? in
                let parts = line.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                return parts.count == 2 ? Song.Tag(String(parts[0]), String(parts[1])) : nil
            }
            return InspectedFile(tags: tags, duration: 100, audioFormat: "44100:16:2")
        }
    }

    final class Fixture: Sendable {
        let root: URL
        let music: String
        let library: MusicLibrary
        let recorder = Recorder()
        var changes: [Set<Change>] { recorder.sets.withLock { $0 } }

        /// The idle events the library announced, in order.
        final class Recorder: Sendable {
            let sets = Mutex<[Set<Change>]>([])
        }

        init() throws {
            root = FileManager.default.temporaryDirectory.appendingPathComponent("nosignal-remote-\(UUID().uuidString)")
            music = root.appendingPathComponent("music").path
            try FileManager.default.createDirectory(atPath: music, withIntermediateDirectories: true)
            let database = try LibraryDatabase(path: root.appendingPathComponent("db/database.sqlite").path)
            let recorder = self.recorder
            library = MusicLibrary(database: database, musicDirectory: music, inspector: TextInspector(),
                                   logger: Logger(label: "test"),
                                   announce: { set in recorder.sets.withLock { $0.append(set) } })
        }

        deinit { try? FileManager.default.removeItem(at: root) }

        func write(_ uri: String, _ tags: [(String, String)]) throws {
            let path = music + "/" + uri
            try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent,
                                                    withIntermediateDirectories: true)
            try tags.map { "\($0.0)=\($0.1)" }.joined(separator: "\n").write(toFile: path, atomically: true, encoding: .utf8)
        }

        func count(_ sql: String, _ arguments: StatementArguments = []) throws -> Int {
            try library.database.writer.read { db in try Int.fetchOne(db, sql: sql, arguments: arguments) ?? -1 }
        }

        var dbUpdate: String? {
            get throws {
                try library.database.writer.read { db in
                    try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = 'db_update'")
                }
            }
        }

        func setDBUpdate(_ value: String) throws {
            try library.database.writer.write { db in
                try db.execute(sql: "INSERT OR REPLACE INTO meta (key, value) VALUES ('db_update', ?)", arguments: [value])
            }
        }

        var queries: LibraryQueries { LibraryQueries(library.database) }

        func find(_ arguments: [String], command: FilterCommand = .find) async throws -> [String] {
            let queries = self.queries
            let query = try FilterParser.parseQuery(arguments: arguments, command: command, validateRegex: QueryFixture.regexValidator(queries))
            return try await queries.songs(matching: query).map(\.uri)
        }
    }

    static func song(_ id: Int, _ title: String, artist: String, album: String = "Remote Album",
                     added: Int64? = 1_600_000_000) -> Song {
        Song(uri: "netease://song/\(id)", tags: [.init("Artist", artist), .init("Title", title), .init("Album", album)],
             duration: 200, lastModified: 1_500_000_000, added: added)
    }

    static let a = song(1, "Alpha Song", artist: "Remote Alpha")
    static let b = song(2, "Beta Song", artist: "Remote Beta")
    static let c = song(3, "Gamma Song", artist: "Remote Gamma")

    /// NetEase, its Liked songs, a Playlists directory with two playlists (one lists a song twice), and Daily.
    static func tree(liked: [Song] = [a, b], road: [Song] = [b, c, b], quiet: [Song]? = [a],
                     daily: [Song] = [c]) -> [RemoteDirectory] {
        var directories = [
            RemoteDirectory(path: "NetEase", songs: []),
            RemoteDirectory(path: "NetEase/Liked", reference: "netease://liked", lastModified: 10, songs: liked),
            RemoteDirectory(path: "NetEase/Playlists"),
            RemoteDirectory(path: "NetEase/Playlists/Road trip", reference: "netease://playlist/100", lastModified: 20,
                            songs: road),
        ]
        if let quiet {
            directories.append(RemoteDirectory(path: "NetEase/Playlists/Quiet", reference: "netease://playlist/200",
                                               lastModified: 30, songs: quiet))
        }
        directories.append(RemoteDirectory(path: "NetEase/Daily", reference: "netease://daily", lastModified: 40,
                                           songs: daily))
        return directories
    }

    // MARK: - Writing and browsing

    @Test func replaceThenBrowseOneLevelAndRecursively() throws {
        let fixture = try Fixture()
        let library = fixture.library
        #expect(try library.replaceRemoteCollection(source: "netease", directories: Self.tree()))

        #expect(try library.remoteEntries(path: "NetEase", recursive: false) == [
            .directory(path: "NetEase/Liked", lastModified: 10), .directory(path: "NetEase/Playlists", lastModified: nil),
            .directory(path: "NetEase/Daily", lastModified: 40),
        ])
        #expect(try library.remoteEntries(path: "NetEase/Playlists", recursive: false) == [
            .directory(path: "NetEase/Playlists/Road trip", lastModified: 20),
            .directory(path: "NetEase/Playlists/Quiet", lastModified: 30),
        ])
        // Songs come back whole (tags in order, duration, times), in the order given, repeats kept.
        #expect(try library.remoteEntries(path: "NetEase/Playlists/Road trip", recursive: false)
            == [.song(Self.b), .song(Self.c), .song(Self.b)])
        // Recursive: the directory itself, its songs, then each subdirectory followed by its contents.
        #expect(try library.remoteEntries(path: "NetEase", recursive: true) == [
            .directory(path: "NetEase", lastModified: nil),
            .directory(path: "NetEase/Liked", lastModified: 10), .song(Self.a), .song(Self.b),
            .directory(path: "NetEase/Playlists", lastModified: nil),
            .directory(path: "NetEase/Playlists/Road trip", lastModified: 20), .song(Self.b), .song(Self.c), .song(Self.b),
            .directory(path: "NetEase/Playlists/Quiet", lastModified: 30), .song(Self.a),
            .directory(path: "NetEase/Daily", lastModified: 40), .song(Self.c),
        ])
        #expect(try library.remoteEntries(path: "NetEase/Liked", recursive: true)
            == [.directory(path: "NetEase/Liked", lastModified: 10), .song(Self.a), .song(Self.b)])
        #expect(try library.remoteEntries(path: "NetEase/Nope", recursive: false) == nil)
        #expect(try library.remoteEntries(path: "NetEase/Liked/x", recursive: true) == nil)
        #expect(try library.remoteEntries(path: "", recursive: false) == nil)

        #expect(try library.remoteChildren(of: "") == [RemoteDirectoryInfo(path: "NetEase", reference: nil,
                                                                           lastModified: nil, songCount: 0)])
        #expect(try library.remoteChildren(of: "NetEase/Playlists") == [
            RemoteDirectoryInfo(path: "NetEase/Playlists/Road trip", reference: "netease://playlist/100",
                                lastModified: 20, songCount: 3),
            RemoteDirectoryInfo(path: "NetEase/Playlists/Quiet", reference: "netease://playlist/200",
                                lastModified: 30, songCount: 1),
        ])
        #expect(try library.remoteChildren(of: "NetEase/Liked") == [])
        #expect(try library.remoteDirectory(path: "NetEase/Liked")
            == RemoteDirectoryInfo(path: "NetEase/Liked", reference: "netease://liked", lastModified: 10, songCount: 2))
        #expect(try library.remoteDirectory(path: "Nope") == nil)

        // Ordinary song rows of the source, outside the local tree, each once.
        #expect(try fixture.count("SELECT COUNT(*) FROM song WHERE source = 'netease' AND directory_id IS NULL") == 3)
        #expect(try fixture.count("SELECT COUNT(*) FROM song") == 3)
        #expect(try library.song(uri: "netease://song/2") == Self.b)
        #expect(try library.list(uri: "", recursive: true) == [])
        #expect(throws: LibraryError.notFound("No such directory")) { try library.list(uri: "NetEase", recursive: false) }
        // Only local songs count for "the database is empty, update it at start-up".
        #expect(try library.isEmpty)
    }

    @Test func aMalformedTreeWritesNothing() throws {
        let fixture = try Fixture()
        let library = fixture.library
        #expect(throws: LibraryError.self) {
            try library.replaceRemoteCollection(source: "netease", directories: [
                RemoteDirectory(path: "NetEase"), RemoteDirectory(path: "NetEase/Playlists/Orphan", songs: [Self.a]),
            ])
        }
        #expect(throws: LibraryError.self) {
            try library.replaceRemoteCollection(source: "netease", directories: [RemoteDirectory(path: "/NetEase")])
        }
        #expect(throws: LibraryError.self) {
            try library.replaceRemoteCollection(source: "netease", directories: [RemoteDirectory(path: "N"), RemoteDirectory(path: "N")])
        }
        // "local" is the music directory's: a sync under that name would delete the local songs.
        #expect(throws: LibraryError.self) {
            try library.replaceRemoteCollection(source: "local", directories: [])
        }
        // Another source's directory is not taken over; the failed sync leaves nothing behind.
        #expect(try library.replaceRemoteCollection(source: "other", directories: [RemoteDirectory(path: "Shared")]))
        #expect(throws: LibraryError.self) {
            try library.replaceRemoteCollection(source: "netease", directories: [
                RemoteDirectory(path: "NetEase", songs: [Self.a]), RemoteDirectory(path: "Shared"),
            ])
        }
        #expect(try fixture.count("SELECT COUNT(*) FROM song") == 0)
        #expect(try library.remoteDirectory(path: "NetEase") == nil)
        #expect(try library.remoteChildren(of: "") == [RemoteDirectoryInfo(path: "Shared", reference: nil,
                                                                           lastModified: nil, songCount: 0)])
    }

    // MARK: - Re-syncs

    @Test func anIdenticalResyncChangesNothing() throws {
        let fixture = try Fixture()
        let library = fixture.library
        let unknownAdded = Self.song(4, "Delta Song", artist: "Remote Delta", added: nil)
        let tree = Self.tree(daily: [Self.c, unknownAdded])
        #expect(try library.replaceRemoteCollection(source: "netease", directories: tree))
        let firstUpdate = try #require(try fixture.dbUpdate)
        #expect(Int64(firstUpdate)! > 1_700_000_000)
        // A song without `Added` gets the time of the sync that stored it first.
        let added = try #require(try library.song(uri: unknownAdded.uri)?.added)
        let ids: [Int64] = try library.database.writer.read { db in try Int64.fetchAll(db, sql: "SELECT id FROM song ORDER BY id") }

        try fixture.setDBUpdate("1")
        #expect(try library.replaceRemoteCollection(source: "netease", directories: tree) == false)
        #expect(try fixture.dbUpdate == "1")
        #expect(try library.song(uri: unknownAdded.uri)?.added == added)

        // Each visible difference counts and moves db_update; songs keep their rows.
        var retagged = Self.b
        retagged.tags[1].value = "Beta Song (Live)"
        #expect(try library.replaceRemoteCollection(source: "netease", directories: Self.tree(
            liked: [Self.a, retagged], road: [retagged, Self.c, retagged], daily: [Self.c, unknownAdded])))
        #expect(try fixture.dbUpdate != "1")
        #expect(try library.song(uri: Self.b.uri) == retagged)
        #expect(try fixture.count("SELECT COUNT(*) FROM song_tag WHERE value = 'Beta Song'") == 0)
        let after: [Int64] = try library.database.writer.read { db in try Int64.fetchAll(db, sql: "SELECT id FROM song ORDER BY id") }
        #expect(after == ids)

        try fixture.setDBUpdate("1")
        var moved = tree
        moved[1].lastModified = 11
        #expect(try library.replaceRemoteCollection(source: "netease", directories: moved))
        #expect(try fixture.dbUpdate != "1")
        #expect(try library.replaceRemoteCollection(source: "netease", directories: moved) == false)
        // Entries reordered.
        moved[1].songs = [Self.b, Self.a]
        #expect(try library.replaceRemoteCollection(source: "netease", directories: moved))
        #expect(try library.remoteEntries(path: "NetEase/Liked", recursive: false) == [.song(Self.b), .song(Self.a)])
        // Siblings reordered.
        moved.swapAt(3, 4)
        #expect(try library.replaceRemoteCollection(source: "netease", directories: moved))
        #expect(try library.remoteChildren(of: "NetEase/Playlists").map(\.path)
            == ["NetEase/Playlists/Quiet", "NetEase/Playlists/Road trip"])
    }

    @Test func aRemovedPlaylistTakesItsOrphansAlong() throws {
        let fixture = try Fixture()
        let library = fixture.library
        let d = Self.song(4, "Only In Quiet", artist: "Remote Delta")
        #expect(try library.replaceRemoteCollection(source: "netease", directories: Self.tree(quiet: [Self.a, d])))
        #expect(try library.song(uri: d.uri) != nil)
        // Quiet goes: its directory and its only-there song d; a (also liked) stays.
        #expect(try library.replaceRemoteCollection(source: "netease", directories: Self.tree(quiet: nil)))
        #expect(try library.remoteDirectory(path: "NetEase/Playlists/Quiet") == nil)
        #expect(try library.remoteEntries(path: "NetEase/Playlists/Quiet", recursive: false) == nil)
        #expect(try library.remoteChildren(of: "NetEase/Playlists").map(\.path) == ["NetEase/Playlists/Road trip"])
        #expect(try library.song(uri: d.uri) == nil)
        #expect(try library.song(uri: Self.a.uri) == Self.a)
        #expect(try fixture.count("SELECT COUNT(*) FROM song_tag WHERE value = 'Only In Quiet'") == 0)
        #expect(try fixture.count("SELECT COUNT(*) FROM remote_entry WHERE directory = 'NetEase/Playlists/Quiet'") == 0)
        // A song dropped from every directory goes too, even when its directories stay.
        #expect(try library.replaceRemoteCollection(source: "netease", directories: Self.tree(
            liked: [Self.b], road: [Self.b], quiet: nil, daily: [])))
        #expect(try library.song(uri: Self.a.uri) == nil && library.song(uri: Self.c.uri) == nil)
        #expect(try library.stats().songs == 1)
        // An empty collection empties the source.
        #expect(try library.replaceRemoteCollection(source: "netease", directories: []))
        #expect(try fixture.count("SELECT COUNT(*) FROM song") == 0)
        #expect(try fixture.count("SELECT COUNT(*) FROM remote_directory") == 0)
    }

    @Test func theSameSongInTwoDirectoriesIsOneSong() throws {
        let fixture = try Fixture()
        let library = fixture.library
        #expect(try library.replaceRemoteCollection(source: "netease", directories: [
            RemoteDirectory(path: "NetEase"),
            RemoteDirectory(path: "NetEase/Liked", songs: [Self.a]),
            RemoteDirectory(path: "NetEase/Daily", songs: [Self.a, Self.a]),
        ]))
        #expect(try fixture.count("SELECT COUNT(*) FROM song") == 1)
        #expect(try library.stats().songs == 1)
        #expect(try library.remoteEntries(path: "NetEase/Daily", recursive: false) == [.song(Self.a), .song(Self.a)])
        // Leaving one of them keeps the song for the other.
        #expect(try library.replaceRemoteCollection(source: "netease", directories: [
            RemoteDirectory(path: "NetEase"), RemoteDirectory(path: "NetEase/Daily", songs: [Self.a]),
        ]))
        #expect(try library.song(uri: Self.a.uri) == Self.a)
        #expect(try library.remoteEntries(path: "NetEase", recursive: true)
            == [.directory(path: "NetEase", lastModified: nil), .directory(path: "NetEase/Daily", lastModified: nil),
                .song(Self.a)])
    }

    // MARK: - Queries and local updates

    @Test func queriesSeeRemoteSongsAfterTheLocalOnes() async throws {
        let fixture = try Fixture()
        let library = fixture.library
        try fixture.write("b/two.flac", [("Artist", "Alpha"), ("Title", "Local Two"), ("Album", "Local")])
        try fixture.write("a/one.flac", [("Artist", "Alpha"), ("Title", "Local One"), ("Album", "Local")])
        try library.runUpdate(uri: "", discard: false)
        // Stored in this order, so by id 9 comes before 10, though "…/10" sorts first by URI.
        let nine = Self.song(9, "Remote Nine", artist: "Alpha", album: "Cloud")
        let ten = Self.song(10, "Remote Ten", artist: "Alpha", album: "Cloud")
        #expect(try library.replaceRemoteCollection(source: "netease", directories: [
            RemoteDirectory(path: "NetEase", songs: [nine]), RemoteDirectory(path: "NetEase/Liked", songs: [ten, nine]),
        ]))

        let all = ["a/one.flac", "b/two.flac", "netease://song/9", "netease://song/10"]
        #expect(try await fixture.find(["(Artist == 'Alpha')"]) == all)
        #expect(try await fixture.find(["(file != '')"]) == all)
        #expect(try await fixture.find(["Artist", "alpha"], command: .search) == all)
        #expect(try await fixture.find(["(Title contains 'Remote')"], command: .search) == ["netease://song/9", "netease://song/10"])
        // Sort and window apply to the whole result as before.
        #expect(try await fixture.find(["(Artist == 'Alpha')", "window", "1:3"]) == ["b/two.flac", "netease://song/9"])
        #expect(try await fixture.find(["(Artist == 'Alpha')", "sort", "-Title"])
            == ["netease://song/10", "netease://song/9", "b/two.flac", "a/one.flac"])
        #expect(try await fixture.queries.list(ListQuery(tag: .album)) == [["Cloud"], ["Local"]])
        #expect(try await fixture.queries.list(ListQuery(tag: nil)).map { $0[0] } == all)
        let count = try await fixture.queries.count(CountQuery(expression: .and([]), group: .album))
        #expect(count.map(\.group) == ["Cloud", "Local"] && count.map(\.songs) == [2, 2])
        #expect(count.map(\.playtime) == [400, 200])
        #expect(try await fixture.queries.songExists(uri: "netease://song/10"))
        #expect(try library.song(uri: "netease://song/10") == ten)
        let stats = try library.stats()
        #expect(stats.songs == 4 && stats.artists == 1 && stats.albums == 2 && stats.playtime == 600)
        // The local tree does not show them.
        #expect(try library.list(uri: "", recursive: true).count == 4) // a, a/one, b, b/two
        #expect(try !library.list(uri: "", recursive: true).contains { entry in
            if case .song(let song) = entry { return song.uri.hasPrefix("netease://") }
            return false
        })
        #expect(try !library.isEmpty)
    }

    /// `base` names a remote directory like a local one: the songs in it and below it (`findadd base
    /// "NetEase/Liked"`), each once; a local base still sees local songs only.
    @Test func baseSelectsRemoteDirectories() async throws {
        let fixture = try Fixture()
        try fixture.write("a/one.flac", [("Artist", "Alpha"), ("Title", "Local One")])
        try fixture.library.runUpdate(uri: "", discard: false)
        #expect(try fixture.library.replaceRemoteCollection(source: "netease", directories: Self.tree()))
        #expect(try await fixture.find(["(base 'NetEase/Liked')"]) == ["netease://song/1", "netease://song/2"])
        #expect(try await fixture.find(["(base 'NetEase/Playlists')"])
            == ["netease://song/1", "netease://song/2", "netease://song/3"])
        #expect(try await fixture.find(["(base 'NetEase')", "window", "0:1"]) == ["netease://song/1"])
        #expect(try await fixture.find(["(base 'a')"]) == ["a/one.flac"])
        // A prefix of a directory name is not that directory.
        await #expect(throws: PortError.notFound("No such directory")) {
            _ = try await fixture.find(["(base 'NetEase/Play')"])
        }
    }

    @Test func localUpdatesKeepRemoteSongs() throws {
        let fixture = try Fixture()
        let library = fixture.library
        try fixture.write("a/one.flac", [("Artist", "Alpha"), ("Title", "Local One")])
        try fixture.write("b/two.flac", [("Artist", "Beta"), ("Title", "Local Two")])
        try library.runUpdate(uri: "", discard: false)
        #expect(try library.replaceRemoteCollection(source: "netease", directories: Self.tree()))
        let remote = try library.remoteEntries(path: "NetEase", recursive: true)

        // A file and a whole directory go (a modifying update, which prunes empty directories), then rescans.
        try FileManager.default.removeItem(atPath: fixture.music + "/b")
        #expect(try library.runUpdate(uri: "", discard: false))
        #expect(try library.song(uri: "b/two.flac") == nil)
        #expect(try library.runUpdate(uri: "a", discard: true))
        #expect(try library.runUpdate(uri: "", discard: true))
        try FileManager.default.removeItem(atPath: fixture.music + "/a/one.flac")
        #expect(try library.runUpdate(uri: "a/one.flac", discard: false))
        #expect(try library.isEmpty)

        #expect(try library.remoteEntries(path: "NetEase", recursive: true) == remote)
        #expect(try library.stats().songs == 3)
        #expect(try library.song(uri: Self.c.uri) == Self.c)
        // The tag index an update may rebuild still finds them.
        #expect(try fixture.count("SELECT COUNT(*) FROM song_tag WHERE tag = ? AND value = 'Remote Gamma'",
                                 [TagName.artist.rawValue]) == 1)
    }

    // MARK: - Jobs

    @Test func jobsShareTheUpdateQueue() async throws {
        let fixture = try Fixture()
        let library = fixture.library
        try fixture.write("a/one.flac", [("Artist", "Alpha")])
        try library.runUpdate(uri: "", discard: false) // so the queued update below finds nothing to do
        let started = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let ran = Mutex<[String]>([])
        let first = try library.enqueueJob(uri: "NetEase") {
            started.signal()
            release.wait()
            ran.withLock { $0.append("sync") }
            return try library.replaceRemoteCollection(source: "netease", directories: Self.tree())
        }
        started.wait()
        #expect(library.runningUpdateID == first)
        let second = try library.enqueueUpdate(uri: "", discard: false)
        let third = try library.enqueueJob(uri: "NetEase") {
            ran.withLock { $0.append("unchanged") }
            return try library.replaceRemoteCollection(source: "netease", directories: Self.tree())
        }
        #expect(first == 1 && second == 2 && third == 3)
        #expect(fixture.changes == [[Change(.update)]])
        release.signal()
        await library.waitForUpdates()
        #expect(library.runningUpdateID == nil)
        #expect(ran.withLock { $0 } == ["sync", "unchanged"])
        // Start; the sync changed the database; the update and the second sync did not.
        #expect(fixture.changes == [[Change(.update)], [Change(.update), Change(.database)],
                                                     [Change(.update)], [Change(.update)]])
        #expect(try library.enqueueUpdate(uri: "", discard: false) == 4)
        await library.waitForUpdates()
    }

    /// A client that sends the next `update` the moment `updating_db` is gone (as the differential scripts do) gets
    /// it run once: the ending worker used to look at the queue again after its lock and run that job beside the
    /// worker started for it (two scans of one tree: "UNIQUE constraint failed: directory.path").
    @Test func aJobQueuedAsThePreviousEndsRunsOnce() async throws {
        let fixture = try Fixture()
        let library = fixture.library
        let rounds = 300
        let runs = Mutex<[Int]>(Array(repeating: 0, count: rounds))
        for round in 0..<rounds {
            try library.enqueueJob(uri: "NetEase") {
                runs.withLock { $0[round] += 1 }
                return false
            }
            while library.runningUpdateID != nil {}
        }
        await library.waitForUpdates()
        try await Task.sleep(for: .milliseconds(50))
        #expect(runs.withLock { $0 } == Array(repeating: 1, count: rounds))
    }

    @Test func jobsFillTheQueueAndAreDroppedAtShutdown() async throws {
        let fixture = try Fixture()
        let library = fixture.library
        let started = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let runs = Atomic<Int>(0)
        try library.enqueueJob(uri: "NetEase") {
            started.signal()
            release.wait()
            runs.add(1, ordering: .relaxed)
            return false
        }
        started.wait()
        for index in 0..<UpdateQueue.maximumQueued {
            if index.isMultiple(of: 2) {
                try library.enqueueUpdate(uri: "", discard: false)
            } else {
                try library.enqueueJob(uri: "NetEase") { runs.add(1, ordering: .relaxed); return true }
            }
        }
        #expect(throws: LibraryError.updateBusy("Update queue is full")) {
            try library.enqueueJob(uri: "NetEase") { true }
        }
        library.cancelUpdates()
        #expect(throws: LibraryError.updateBusy("Update queue is full")) {
            try library.enqueueJob(uri: "NetEase") { true }
        }
        release.signal()
        await library.waitForUpdates()
        #expect(runs.load(ordering: .relaxed) == 1)
        #expect(fixture.changes == [[Change(.update)], [Change(.update)]])
    }
}
