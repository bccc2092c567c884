/// Account endpoints.
public enum AccountEndpoints {
    /// `user_account`: the same answer as `login_status`, unwrapped.
    public struct Account: NetEaseEndpoint {
        public init() {}
        public var path: String { "/api/nuser/account/get" }
        public typealias Response = AccountResponse
    }
}
