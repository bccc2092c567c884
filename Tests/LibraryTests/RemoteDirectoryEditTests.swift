import Foundation
@testable import Library
import MPDProtocol
import PlayerCore
import Testing

/// One remote directory changed between syncs (a like, a playlist edit made through NoSignal), on the same fixture
/// as `RemoteCollectionTests`.
@Suite struct RemoteDirectoryEditTests {
    typealias Base = RemoteCollectionTests
    static let d = Base.song(4, "Delta Song", artist: "Remote Delta")

    @Test func replacingOneDirectoryKeepsTheRestAndAnnouncesDatabase() throws {
        let fixture = try Base.Fixture()
        let library = fixture.library
        #expect(try library.replaceRemoteCollection(source: "netease", directories: Base.tree()))
        try fixture.setDBUpdate("1")
        let before = fixture.changes.count

        // A new song on top of Liked: inserted with its tags; the others keep their rows.
        let id = try fixture.count("SELECT id FROM song WHERE uri = 'netease://song/1'")
        #expect(try library.replaceRemoteDirectory(source: "netease", RemoteDirectory(
            path: "NetEase/Liked", reference: "netease://liked", lastModified: 10, songs: [Self.d, Base.a, Base.b])))
        #expect(try library.remoteEntries(path: "NetEase/Liked", recursive: false)
            == [.song(Self.d), .song(Base.a), .song(Base.b)])
        #expect(try fixture.count("SELECT id FROM song WHERE uri = 'netease://song/1'") == id)
        #expect(try library.remoteSongURIs(path: "NetEase/Liked")
            == ["netease://song/4", "netease://song/1", "netease://song/2"])
        #expect(try library.remoteEntries(path: "NetEase/Playlists/Road trip", recursive: false)
            == [.song(Base.b), .song(Base.c), .song(Base.b)])
        #expect(try fixture.dbUpdate != "1")
        #expect(fixture.changes.dropFirst(before) == [[Change(.database)]])

        // The same again changes nothing and says nothing.
        #expect(try !library.replaceRemoteDirectory(source: "netease", RemoteDirectory(
            path: "NetEase/Liked", reference: "netease://liked", lastModified: 10, songs: [Self.d, Base.a, Base.b])))
        #expect(fixture.changes.count == before + 1)

        // A song no directory lists any more leaves the database (Quiet listed the only other `a`).
        #expect(try library.replaceRemoteDirectory(source: "netease", RemoteDirectory(
            path: "NetEase/Playlists/Quiet", reference: "netease://playlist/200", lastModified: 31, songs: [])))
        #expect(try library.replaceRemoteDirectory(source: "netease", RemoteDirectory(
            path: "NetEase/Liked", reference: "netease://liked", lastModified: 10, songs: [Base.b])))
        #expect(try library.song(uri: "netease://song/1") == nil)
        #expect(try library.song(uri: "netease://song/4") == nil)
        #expect(try library.remoteDirectory(path: "NetEase/Playlists/Quiet")
            == RemoteDirectoryInfo(path: "NetEase/Playlists/Quiet", reference: "netease://playlist/200", lastModified: 31,
                                   songCount: 0))
        #expect(try library.remoteSongURIs(path: "NetEase/Nope") == nil)
    }

    @Test func aNewDirectoryGoesWhereItIsAskedAndRemovingItTakesItsSongs() throws {
        let fixture = try Base.Fixture()
        let library = fixture.library
        #expect(try library.replaceRemoteCollection(source: "netease", directories: Base.tree()))
        #expect(try library.replaceRemoteDirectory(source: "netease", RemoteDirectory(
            path: "NetEase/Playlists/New", reference: "netease://playlist/300", lastModified: 50, songs: [Self.d]), at: 0))
        #expect(try library.remoteChildren(of: "NetEase/Playlists").map(\.path)
            == ["NetEase/Playlists/New", "NetEase/Playlists/Road trip", "NetEase/Playlists/Quiet"])
        #expect(try library.replaceRemoteDirectory(source: "netease", RemoteDirectory(path: "NetEase/Playlists/Last"),
                                                   at: nil))
        #expect(try library.remoteChildren(of: "NetEase/Playlists").map(\.path).last == "NetEase/Playlists/Last")
        // The next sync of the same tree puts everything back as the sync has it.
        #expect(try library.replaceRemoteCollection(source: "netease", directories: Base.tree()))
        #expect(try library.remoteChildren(of: "NetEase/Playlists").map(\.path)
            == ["NetEase/Playlists/Road trip", "NetEase/Playlists/Quiet"])

        #expect(try library.replaceRemoteDirectory(source: "netease", RemoteDirectory(
            path: "NetEase/Playlists/New", reference: "netease://playlist/300", songs: [Self.d]), at: 1))
        let before = fixture.changes.count
        #expect(try library.removeRemoteDirectory(source: "netease", path: "NetEase/Playlists/New"))
        #expect(try library.remoteDirectory(path: "NetEase/Playlists/New") == nil)
        #expect(try library.song(uri: "netease://song/4") == nil)
        #expect(fixture.changes.dropFirst(before) == [[Change(.database)]])
        #expect(try !library.removeRemoteDirectory(source: "netease", path: "NetEase/Playlists/New"))
        #expect(fixture.changes.count == before + 1)
    }

    @Test func renamingADirectoryKeepsItsPlaceItsSongsAndWhatIsBelowIt() throws {
        let fixture = try Base.Fixture()
        let library = fixture.library
        #expect(try library.replaceRemoteCollection(source: "netease", directories: Base.tree()))
        let before = fixture.changes.count
        #expect(try library.renameRemoteDirectory(source: "netease", path: "NetEase/Playlists/Road trip",
                                                  to: "NetEase/Playlists/Road trip 2"))
        #expect(try library.remoteChildren(of: "NetEase/Playlists").map(\.path)
            == ["NetEase/Playlists/Road trip 2", "NetEase/Playlists/Quiet"])
        #expect(try library.remoteDirectory(path: "NetEase/Playlists/Road trip 2")
            == RemoteDirectoryInfo(path: "NetEase/Playlists/Road trip 2", reference: "netease://playlist/100",
                                   lastModified: 20, songCount: 3))
        #expect(try library.remoteEntries(path: "NetEase/Playlists/Road trip 2", recursive: false)
            == [.song(Base.b), .song(Base.c), .song(Base.b)])
        #expect(try library.remoteDirectory(path: "NetEase/Playlists/Road trip") == nil)
        #expect(fixture.changes.dropFirst(before) == [[Change(.database)]])

        // A directory with directories below: they move with it, and keep their songs.
        #expect(try library.renameRemoteDirectory(source: "netease", path: "NetEase/Playlists",
                                                  to: "NetEase/Lists"))
        #expect(try library.remoteChildren(of: "NetEase").map(\.path)
            == ["NetEase/Liked", "NetEase/Lists", "NetEase/Daily"])
        #expect(try library.remoteChildren(of: "NetEase/Lists").map(\.path)
            == ["NetEase/Lists/Road trip 2", "NetEase/Lists/Quiet"])
        #expect(try library.remoteSongURIs(path: "NetEase/Lists/Quiet") == ["netease://song/1"])
        // A song stays while a renamed directory lists it: an edit after the rename deletes nothing else.
        #expect(try library.replaceRemoteDirectory(source: "netease", RemoteDirectory(
            path: "NetEase/Liked", reference: "netease://liked", lastModified: 10, songs: [])))
        #expect(try library.song(uri: "netease://song/1") != nil)

        // Taken, elsewhere, another source's or missing: refused or nothing.
        #expect(throws: LibraryError.self) {
            try library.renameRemoteDirectory(source: "netease", path: "NetEase/Lists/Quiet",
                                              to: "NetEase/Lists/Road trip 2")
        }
        #expect(throws: LibraryError.self) {
            try library.renameRemoteDirectory(source: "netease", path: "NetEase/Lists/Quiet", to: "NetEase/Quiet")
        }
        #expect(try !library.renameRemoteDirectory(source: "other", path: "NetEase/Lists/Quiet",
                                                   to: "NetEase/Lists/Loud"))
        #expect(try !library.renameRemoteDirectory(source: "netease", path: "NetEase/Lists/Nope",
                                                   to: "NetEase/Lists/Loud"))
        #expect(try library.remoteSongURIs(path: "NetEase/Lists/Quiet") == ["netease://song/1"])
    }

    @Test func aDirectoryNeedsItsParentAndItsSource() throws {
        let fixture = try Base.Fixture()
        let library = fixture.library
        #expect(try library.replaceRemoteCollection(source: "netease", directories: Base.tree()))
        #expect(throws: LibraryError.self) {
            try library.replaceRemoteDirectory(source: "netease", RemoteDirectory(path: "NetEase/Nope/Child"))
        }
        #expect(throws: LibraryError.self) {
            try library.replaceRemoteDirectory(source: "other", RemoteDirectory(path: "NetEase/Liked"))
        }
        #expect(throws: LibraryError.self) {
            try library.replaceRemoteDirectory(source: "local", RemoteDirectory(path: "Anything"))
        }
        // Another source's directory is not removed either.
        #expect(try !library.removeRemoteDirectory(source: "other", path: "NetEase/Liked"))
        #expect(try library.remoteSongURIs(path: "NetEase/Liked") == ["netease://song/1", "netease://song/2"])
    }
}
