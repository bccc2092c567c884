import Foundation
import Library
import Logging
import MPDProtocol
import NetEase
import PlayerCore
import ServerPorts

/// `update NetEase` and the background sync: the liked songs, the daily recommendations and every own and
/// subscribed playlist go into the music database, so `find`, `search`, `list`, `count`, `stats` and
/// `listallinfo` see them offline, and `lsinfo` of those folders needs no request.
extension NetEaseCatalog {
    /// Queues a sync as an update job (its id is `update`'s answer and `status`'s `updating_db`).
    public func startSync() throws -> Int {
        guard let library else { throw PortError.disabled }
        do {
            return try library.enqueueJob(uri: root) { [self] in try sync() }
        } catch LibraryError.updateBusy(let message) {
            throw PortError.busy(message)
        }
    }

    /// Fetches the collection and stores it; true when the database changed. Guest mode stores an empty
    /// collection (a previous account's songs leave with its login).
    func sync() throws -> Bool {
        guard let library else { return false }
        service.recheckAccount()
        service.forgetAnswers()
        let started = ContinuousClock.now
        var directories = [RemoteDirectory(path: root, reference: nil, lastModified: nil, songs: [])]
        do {
            guard case .loggedIn(_, let nickname) = try service.account() else {
                logger.notice("NetEase sync: guest mode, no collection to sync")
                return try library.replaceRemoteCollection(source: Self.source, directories: [])
            }
            logger.notice("NetEase sync: reading the collection of \(nickname)")
            // The daily songs are the least important part: when only they fail, the stored ones stay.
            let daily: [Song]
            do {
                daily = try songs(of: .daily)
            } catch {
                logger.warning("NetEase sync: cannot read the daily songs (\(error)); keeping the stored ones")
                daily = (try? library.remoteEntries(path: path(.daily), recursive: false))??.compactMap(\.song) ?? []
            }
            directories.append(RemoteDirectory(path: path(.daily), reference: "netease://daily", lastModified: nil,
                                               songs: daily))
            // Today's recommended playlists, below the daily songs; like the songs, they may fail alone.
            do {
                let recommended = try recommendedPlaylists()
                let names = Self.uniqueNames(recommended.map(\.name))
                for (index, playlist) in recommended.enumerated() {
                    directories.append(RemoteDirectory(path: path(.daily) + "/" + names[index],
                                                       reference: NetEaseURI.playlist(playlist.id), lastModified: nil,
                                                       songs: try songs(of: .playlist(playlist.id))))
                }
            } catch {
                logger.warning("NetEase sync: cannot read the recommended playlists (\(error))")
            }
            let liked = try likedSongs()
            directories.append(RemoteDirectory(path: path(.liked), reference: nil, lastModified: nil, songs: liked))
            logger.info("NetEase sync: \(liked.count) liked songs, \(daily.count) daily songs")
            let playlists = try ownPlaylists()
            directories.append(RemoteDirectory(path: path(.playlists), reference: nil, lastModified: nil, songs: []))
            let names = Self.uniqueNames(playlists.map(\.name))
            for (index, playlist) in playlists.enumerated() {
                let tracks = try songs(of: .playlist(playlist.id))
                directories.append(RemoteDirectory(path: path(.playlists) + "/" + names[index],
                                                   reference: NetEaseURI.playlist(playlist.id),
                                                   lastModified: playlist.updateTime.map { $0 / 1000 }, songs: tracks))
                logger.info("NetEase sync: playlist \(index + 1)/\(playlists.count), \(tracks.count) songs")
            }
        } catch let error as NetEaseError {
            logger.error("NetEase sync failed: \(error); the collection stays as it was")
            return false
        }
        let changed = try library.replaceRemoteCollection(source: Self.source, directories: directories)
        let songs = Set(directories.flatMap { $0.songs.map(\.uri) }).count
        logger.notice("""
            NetEase sync: \(songs) songs in \(directories.count - 1) folders, \(changed ? "database updated" : "no change") \
            (\(ContinuousClock.now - started))
            """)
        return changed
    }

    func path(_ folder: Folder) -> String { root + "/" + folder.rawValue }

    /// Syncs now and then every `interval` seconds until `stop()`; nothing when `interval` is 0.
    public func startBackgroundSync(interval: Int) -> BackgroundSync? {
        guard library != nil, interval > 0 else { return nil }
        return BackgroundSync(interval: interval) { [self] in
            do { _ = try startSync() } catch { logger.warning("NetEase sync not started: \(error)") }
        }
    }
}

/// Runs the sync at start and then every `interval` seconds, until `stop()`.
public final class BackgroundSync: Sendable {
    private let task: Task<Void, Never>

    init(interval: Int, _ fire: @escaping @Sendable () -> Void) {
        task = Task.detached(priority: .utility) {
            repeat {
                fire()
                guard (try? await Task.sleep(for: .seconds(interval))) != nil else { return }
            } while !Task.isCancelled
        }
    }

    public func stop() { task.cancel() }
}
