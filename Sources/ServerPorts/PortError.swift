/// Why a port's implementation refused: the edges (the SQLite library, the NetEase catalogue) say it in these
/// words, and the server turns them into MPD's ACKs in one place (`ACKError.from`, in
/// `Sources/MPDServer/ACKError+Mapping.swift`). The text is the ACK's message.
public enum PortError: Error, Equatable, Sendable {
    /// ACK 50 (`ACK_ERROR_NO_EXIST`) with this text, e.g. "No such directory", "No such song".
    case notFound(String)
    /// ACK 50 "No database": no music directory is configured.
    case disabled
    /// ACK 2 (`ACK_ERROR_ARG`) with this text: the request names something the store cannot take.
    case invalid(String)
    /// ACK 54 (`ACK_ERROR_UPDATE_ALREADY`) with this text: an update is running or queued to the limit.
    case busy(String)
    /// ACK 4 (`ACK_ERROR_PERMISSION`) with this text: the store refuses the change (a playlist of someone else).
    case denied(String)
    /// ACK 52 (`ACK_ERROR_SYSTEM`) with this text: the store, the disk or the network failed.
    case failed(String)
    /// ACK 5 (`ACK_ERROR_UNKNOWN`) with this text.
    case unknown(String)
}

extension PortError: CustomStringConvertible {
    /// The text a client reads after the ACK's code, so that a log line says what the client was told.
    public var description: String {
        switch self {
        case .notFound(let text), .invalid(let text), .busy(let text), .denied(let text), .failed(let text),
             .unknown(let text):
            text
        case .disabled:
            "No database"
        }
    }
}
