//! The webhooks `create webhook` scaffolds, called by a real API server.
