import Foundation

/// What a `netease://` URI or a NetEase share link names: `add` expands it to its songs.
public enum NetEaseReference: Sendable, Equatable, Hashable {
    case song(Int64)
    case playlist(Int64)
    case album(Int64)
    /// The artist's top songs.
    case artist(Int64)
    /// The daily recommendations (每日推荐).
    case daily
    /// Personal FM (私人 FM): in the queue, a source that inserts new songs before itself as it is reached.
    case fm
    /// Heartbeat mode (心动模式): like `fm`, from the intelligence list seeded by the song before it and the liked
    /// songs.
    case heartbeat

    /// `fm` and `heartbeat`: never-ending sources rather than song lists.
    public var isRadio: Bool { self == .fm || self == .heartbeat }

    /// `netease://song/1`, `netease://daily`, … or a share link: `https://music.163.com/song?id=1`,
    /// `…/#/playlist?id=…`, `…/m/album?id=…`, `https://y.music.163.com/m/song?id=…`, `…/song/1/?userid=…`.
    /// nil for anything else (other hosts, `163cn.tv` short links, which need a redirect, DJ programmes).
    public init?(_ text: String) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed.hasPrefix(NetEaseURI.scheme) {
            let rest = trimmed.dropFirst(NetEaseURI.scheme.count).split(separator: "/", omittingEmptySubsequences: false)
            switch (rest.first.map(String.init), rest.count) {
            case ("daily", 1): self = .daily
            case ("fm", 1): self = .fm
            case ("heartbeat", 1): self = .heartbeat
            case (let kind?, 2):
                guard let id = Int64(rest[1]), id > 0, let reference = Self(kind: kind, id: id) else { return nil }
                self = reference
            default: return nil
            }
            return
        }
        guard let reference = Self.shareLink(trimmed) else { return nil }
        self = reference
    }

    private init?(kind: String, id: Int64) {
        switch kind {
        case "song": self = .song(id)
        case "playlist": self = .playlist(id)
        case "album": self = .album(id)
        case "artist": self = .artist(id)
        default: return nil
        }
    }

    static let shareHosts: Set<String> = ["music.163.com", "www.music.163.com", "y.music.163.com", "m.music.163.com"]

    private static func shareLink(_ text: String) -> NetEaseReference? {
        let lower = text.lowercased()
        guard lower.hasPrefix("https://") || lower.hasPrefix("http://") else { return nil }
        // The app's links put the page after `#/` (`https://music.163.com/#/song?id=1`); the rest is a plain URL.
        guard let url = URLComponents(string: text.replacingOccurrences(of: "/#/", with: "/")),
              let host = url.host?.lowercased(), shareHosts.contains(host)
        else { return nil }
        let components = url.path.split(separator: "/").map(String.init)
        if let id = url.queryItems?.first(where: { $0.name == "id" })?.value.flatMap({ Int64($0) }), id > 0,
           let kind = components.last {
            return NetEaseReference(kind: kind, id: id)
        }
        // `/song/1/` with the id in the path.
        if components.count >= 2, let id = Int64(components[components.count - 1]), id > 0 {
            return NetEaseReference(kind: components[components.count - 2], id: id)
        }
        return nil
    }

    /// The canonical `netease://` URI.
    public var uri: String {
        switch self {
        case .song(let id): NetEaseURI.song(id)
        case .playlist(let id): NetEaseURI.playlist(id)
        case .album(let id): NetEaseURI.album(id)
        case .artist(let id): NetEaseURI.artist(id)
        case .daily: "netease://daily"
        case .fm: "netease://fm"
        case .heartbeat: "netease://heartbeat"
        }
    }
}
