import Foundation

/// MPD's `ParsePath` (`src/config/Path.cxx`) for the options that name files: `~` is the home directory,
/// `~/x` is inside it, `~user/x` is inside that user's home, and anything else must be absolute, because a
/// relative path would depend on the directory the server happens to be started from.
public struct PathExpander: Sendable {
    enum Failure: Error, Equatable {
        case notAbsolute
        case noSuchUser(String)
    }

    /// `$HOME` from the environment the caller passed, so tests never see the real home.
    let home: String

    func expand(_ path: String) throws(Failure) -> String {
        guard path.hasPrefix("~") else {
            guard path.hasPrefix("/") else { throw .notAbsolute }
            return path
        }
        let afterTilde = path.dropFirst()
        if afterTilde.isEmpty { return home }
        if afterTilde.hasPrefix("/") { return Self.join(home, String(afterTilde.dropFirst())) }
        let user = afterTilde.prefix { $0 != "/" }
        let rest = afterTilde.dropFirst(user.count).drop { $0 == "/" }
        guard let userHome = FileManager.default.homeDirectory(forUser: String(user))?.path else {
            throw .noSuchUser(String(user))
        }
        return rest.isEmpty ? userHome : Self.join(userHome, String(rest))
    }

    /// `directory/name` without doubling the slash when `directory` ends with one (the root, a `HOME=/x/`).
    public static func join(_ directory: String, _ name: String) -> String {
        if name.isEmpty { return directory }
        return directory.hasSuffix("/") ? directory + name : directory + "/" + name
    }

    /// `$HOME` when set; otherwise the account's home, as MPD falls back to the password database.
    static func home(from environment: [String: String]) -> String {
        if let home = environment["HOME"], !home.isEmpty { return home }
        return FileManager.default.homeDirectoryForCurrentUser.path
    }

    /// An XDG base directory (`XDG_DATA_HOME`, …): the variable when it is an absolute path (the spec says to
    /// ignore relative ones), else the fallback under `$HOME`.
    static func xdgDirectory(_ variable: String, fallback: String, environment: [String: String]) -> String {
        if let value = environment[variable], value.hasPrefix("/") { return value }
        return join(home(from: environment), fallback)
    }
}
