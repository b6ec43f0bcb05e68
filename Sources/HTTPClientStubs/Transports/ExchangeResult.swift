import Foundation
import HTTPClient

/// How an exchange ends: a delivery, or the request to send to the real network.
package enum ExchangeResult: Sendable {
    case deliver(Delivery)
    case passthrough(URLRequest)
}
