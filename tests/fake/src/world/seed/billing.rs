//! Invoices and their payments: each one released by the client.

use jiff::Timestamp;

use super::Seeder;
use crate::world::records::{Activity, ActivityKind, Invoice, InvoiceLine, Payment};

impl Seeder {
    /// Adds an invoice with one line and one payment, released `release` by the client.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn invoice(
        &mut self,
        bid: (u64, u64, u64), // bid, client, provider
        invoice_id: u64,
        payment_id: u64,
        sent: Timestamp,
        release: Timestamp,
        comments: String,
        line: InvoiceLine,
        request_comment: String,
        release_comment: &str,
        external: Option<(u64, String)>,
    ) {
        let (bid, client, provider) = bid;
        let amount = line.amount();
        self.payments.push(Payment {
            id: payment_id,
            invoice: invoice_id,
            bid,
            at: release,
            amount,
            external,
        });
        self.invoices.push(Invoice {
            id: invoice_id,
            bid,
            date: sent,
            comments,
            lines: vec![line],
            activity: vec![
                Activity {
                    kind: ActivityKind::ReleaseRequestSent,
                    user: provider,
                    at: sent,
                    comments: request_comment,
                    payment: None,
                },
                Activity {
                    kind: ActivityKind::Released,
                    user: client,
                    at: release,
                    comments: release_comment.to_owned(),
                    payment: Some(payment_id),
                },
            ],
            payment_ids: vec![payment_id],
        });
    }
}
