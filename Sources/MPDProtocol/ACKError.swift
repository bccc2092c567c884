/// An error answered to the client as `ACK [code@index] {command} message` (`src/protocol/Ack.hxx`).
/// Handlers only throw; the session fills in the command name and the command-list index.
public struct ACKError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Code: Int, Sendable {
        case notList = 1
        case arg = 2
        case password = 3
        case permission = 4
        case unknown = 5
        case noExist = 50
        case playlistMax = 51
        case system = 52
        case playlistLoad = 53
        case updateAlready = 54
        case playerSync = 55
        case exist = 56
    }

    public var code: Code
    public var message: String
    /// The command name printed between the braces; empty when the failure came before the command lookup.
    public var command: String
    /// Whether MPD closes the connection after writing this ACK (e.g. `Invalid word character`).
    public var closesConnection: Bool

    /// Whether the message is written as it is. MPD 0.24 tidies the blanks of every error it reports from an
    /// exception (`MessageText.sanitized`), which is most of them; the few it writes straight into the response
    /// (argument counts, unknown commands, permissions, some sticker errors) keep theirs.
    public var verbatim: Bool

    public init(_ code: Code, _ message: String, command: String = "", closesConnection: Bool = false,
                verbatim: Bool = false) {
        self.code = code
        self.message = message
        self.command = command
        self.closesConnection = closesConnection
        self.verbatim = verbatim
    }

    /// The response line without its trailing newline.
    public func line(listIndex: Int = 0) -> String {
        "ACK [\(code.rawValue)@\(listIndex)] {\(command)} \(verbatim ? message : MessageText.sanitized(message))"
    }

    public var description: String { line() }

    // Frequent errors, with MPD's exact texts.
    public static func unknownCommand(_ name: String) -> ACKError {
        ACKError(.unknown, "unknown command \"\(name)\"", verbatim: true)
    }
    public static func permissionDenied(_ name: String) -> ACKError {
        ACKError(.permission, "you don't have permission for \"\(name)\"", verbatim: true)
    }
    public static func wrongArgumentCount(_ name: String) -> ACKError {
        ACKError(.arg, "wrong number of arguments for \"\(name)\"", verbatim: true)
    }
    public static func tooFewArguments(_ name: String) -> ACKError { ACKError(.arg, "too few arguments for \"\(name)\"", verbatim: true) }
    public static func tooManyArguments(_ name: String) -> ACKError { ACKError(.arg, "too many arguments for \"\(name)\"", verbatim: true) }
}
