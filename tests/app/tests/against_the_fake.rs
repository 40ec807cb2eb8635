//! The app against the fake marketplace: start it, a session for a seeded user, its workroom;
//! and the same against recorded traffic, replayed by the fake.

use marketplace_fake::{FakeMarketplace, Replay};
use timesheet_totals::{totals, workroom_timesheets};

#[tokio::test]
async fn lists_and_totals_a_workrooms_timesheets() {
    let fake = FakeMarketplace::start().await.unwrap();
    let workroom = fake.world().hourly_workroom();
    let session = fake.session(workroom.client).unwrap();

    let sheets = workroom_timesheets(&session, workroom.bid_id)
        .await
        .unwrap()
        .unwrap();
    let ids: Vec<u64> = sheets.iter().map(|sheet| sheet.id).collect();
    assert_eq!(ids, workroom.timesheets);
    assert!(totals(&sheets).hours > marketplace_client::Decimal::ZERO);
}

#[tokio::test]
async fn a_workroom_of_others_is_none() {
    let fake = FakeMarketplace::start().await.unwrap();
    let workroom = fake.world().hourly_workroom();
    let outsider = fake
        .world()
        .users()
        .iter()
        .find(|user| user.id != workroom.client && user.id != workroom.provider)
        .unwrap();
    let session = fake.session(outsider.id).unwrap();
    assert_eq!(
        workroom_timesheets(&session, workroom.bid_id)
            .await
            .unwrap(),
        None
    );
}

#[tokio::test]
async fn totals_a_workroom_from_recorded_traffic() {
    // Recorded once (`cargo run -p marketplace-tests --example record -- <file>`), audited with
    // `cargo xtask wire-audit`, committed; replayed behind the fake's own OAuth flow.
    let recording = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/recordings/workroom.jsonl"
    );
    let fake = FakeMarketplace::start().await.unwrap();
    fake.replay(Replay::from_files([recording]).unwrap());
    let session = fake
        .sign_in(&fake.client().unwrap(), "dwhitfield")
        .await
        .unwrap();

    let sheets = workroom_timesheets(&session, 310001)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(totals(&sheets).timesheets, 23);
    fake.check_replay().unwrap();
}
