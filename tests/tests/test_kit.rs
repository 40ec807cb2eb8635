//! The fake's test kit as an app uses it: a session for a seeded user without the OAuth dance,
//! the seeded workrooms and IDs, and the same checks as after the real flow.

use futures::TryStreamExt;
use marketplace_client::jiff::SignedDuration;
use marketplace_client::{Error, ErrorCode};
use marketplace_fake::{FakeError, FakeMarketplace};

#[tokio::test]
async fn a_session_for_a_seeded_user_lists_what_the_world_says() {
    let fake = FakeMarketplace::start().await.unwrap();
    let workroom = fake.world().hourly_workroom();
    let session = fake.session(workroom.client).unwrap();

    let ids: Vec<u64> = session
        .get_timesheets_for_bid(workroom.bid_id)
        .rpp(25)
        .items()
        .map_ok(|sheet| sheet.id)
        .try_collect()
        .await
        .unwrap();
    assert_eq!(ids, workroom.timesheets);
    assert!(ids.len() > 10, "the showcase workroom spans pages: {ids:?}");
    // The current timesheet, as the crate docs say, is the last of the list.
    let current = session
        .get_timesheet_by_bid_id(workroom.bid_id)
        .send()
        .await
        .unwrap();
    assert_eq!(Some(&current.timesheet.id), workroom.timesheets.last());

    let fixed = fake.world().fixed_price_workroom();
    let reports: Vec<Option<u64>> = session
        .get_status_reports_for_bid(fixed.bid_id)
        .items()
        .map_ok(|report| report.id)
        .try_collect()
        .await
        .unwrap();
    let stored: Vec<u64> = reports.into_iter().flatten().collect();
    assert_eq!(stored, fixed.status_reports);

    for invoice in &workroom.invoices {
        let summary = session.get_invoice(*invoice).send().await.unwrap();
        assert_eq!(summary.invoice.bid_id, workroom.bid_id);
        for payment in &summary.invoice.payment_ids {
            assert!(workroom.payments.contains(payment), "{payment}");
        }
    }
}

#[tokio::test]
async fn the_provider_sees_the_screenshots_of_the_seeded_days() {
    let fake = FakeMarketplace::start().await.unwrap();
    let workroom = fake.world().screenshots_workroom();
    let session = fake.session(workroom.provider).unwrap();
    let day = workroom.screenshot_days[0];
    let view = session
        .get_workview_details(workroom.bid_id, workroom.provider)
        .date(day)
        .send()
        .await
        .unwrap();
    assert!(!view.screen_buckets.is_empty(), "{day}");
    assert_eq!(
        view.user_name,
        fake.world().user(workroom.provider).unwrap().login
    );
}

#[tokio::test]
async fn a_user_sees_only_their_workrooms() {
    let fake = FakeMarketplace::start().await.unwrap();
    let hourly = fake.world().hourly_workroom();
    let other = fake
        .world()
        .users()
        .iter()
        .find(|user| user.id != hourly.client && user.id != hourly.provider)
        .unwrap();
    let session = fake.session(other.id).unwrap();
    let error = session
        .get_timesheet_by_bid_id(hourly.bid_id)
        .send()
        .await
        .unwrap_err();
    assert_eq!(
        ErrorCode::of(&error),
        Some(ErrorCode::ValidationInvalidId),
        "{error}"
    );
}

#[tokio::test]
async fn unknown_users_are_refused_with_a_typed_error() {
    let fake = FakeMarketplace::start().await.unwrap();
    let error = fake.session(1).unwrap_err();
    assert!(matches!(error, FakeError::UnknownUser(1)), "{error}");
}

#[tokio::test]
async fn kit_tokens_expire_by_the_fake_clock_and_can_be_revoked() {
    let fake = FakeMarketplace::start().await.unwrap();
    let workroom = fake.world().hourly_workroom();

    let revoked = fake.session(workroom.provider).unwrap();
    revoked.get_my_providers().send().await.unwrap();
    revoked.revoke().await.unwrap();
    let error = revoked.get_my_providers().send().await.unwrap_err();
    assert_eq!(
        ErrorCode::of(&error),
        Some(ErrorCode::ApiAuthSignatureMismatch),
        "{error}"
    );

    let expiring = fake.session(workroom.client).unwrap();
    fake.clock().advance(SignedDuration::from_hours(6));
    let error = expiring.get_my_providers().send().await.unwrap_err();
    assert!(
        matches!(&error, Error::Api { failure, .. } if failure.message.as_deref().is_some_and(|m| m.contains("expired"))),
        "{error}"
    );
}

#[tokio::test]
async fn the_dance_stays_available_with_the_kit_client() {
    let fake = FakeMarketplace::start().await.unwrap();
    let client = fake.client().unwrap();
    let login = &fake.world().user(40001).unwrap().login;
    let session = fake.sign_in(&client, login).await.unwrap();
    session.get_my_providers().send().await.unwrap();

    let error = fake.sign_in(&client, "nobody").await.unwrap_err();
    assert!(
        matches!(error, FakeError::UnexpectedPage { status: 401, .. }),
        "{error}"
    );
}
