import MPDProtocol
import PlayerCore

/// A streaming catalogue behind the protocol (NetEase Cloud Music): the URIs it expands for `add`/`load`/
/// `playlistadd` (its own scheme and the share links of its apps) and its online search. Implemented outside the
/// server (`NetEaseLibrary`); the server only decides when to ask. Failures are thrown as `PortError`s whose text
/// names the catalogue (`.failed("NetEase: …")`, answered as `ACK [52@0] {search} NetEase: …`).
public protocol RemoteCatalog: Sendable {
    /// Whether `uri` is one this catalogue expands (`netease://…`, `https://music.163.com/…?id=…`). Cheap: the
    /// event loop calls it.
    func recognizes(_ uri: String) -> Bool

    /// The songs a recognized URI stands for, in order, with their tags: one for a song, every track for a
    /// playlist or album.
    func songs(for uri: String) async throws -> [Song]

    /// The tags of a song URI found in a stored playlist, from what is known locally (the synced collection or
    /// recent answers); nil when unknown. Never waits for the network.
    func knownSong(uri: String) async -> Song?

    /// Whether `search` also asks the catalogue (`search_online`).
    var searchesOnline: Bool { get }

    /// Songs of the online catalogue for these words, best first, at most `limit`.
    func search(keywords: String, limit: Int) async throws -> [Song]
}
