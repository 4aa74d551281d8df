//! Argument completion of extension commands (pi's `getArgumentCompletions`): as the user
//! types `/name <prefix>`, the command's extension is asked off the loop, and what it offers
//! goes to the editor's popup.

use rho_tui::editor::CompletionItem;

use super::{Control, Cx};
use crate::screen::ScreenMsg;

impl Control {
    /// Asks for the completions of the arguments the editor's text now calls for, if it
    /// changed: the answer comes back as a screen message (none offered: an empty list).
    pub(crate) fn complete_arguments(&self, cx: &mut Cx) {
        let Some((command, prefix)) = cx.screen.argument_request() else {
            return;
        };
        let session = cx.shared.session.clone();
        let notices = self.notices.clone();
        tokio::spawn(async move {
            let offered = session
                .extensions()
                .command_completions(&command, &prefix)
                .await;
            let items = offered
                .unwrap_or_default()
                .into_iter()
                .map(|c| CompletionItem {
                    label: c.label.unwrap_or_else(|| c.value.clone()),
                    value: c.value,
                    description: c.description.unwrap_or_default(),
                })
                .collect();
            notices.send(ScreenMsg::ArgumentCompletions {
                command,
                prefix,
                items,
            });
        });
    }
}
