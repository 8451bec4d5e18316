import { Dialog, Tabs } from "radix-ui";
import { X } from "lucide-react";
import { MCPSettings } from "./MCPSettings";
import { HookSettings } from "./HookSettings";
import { ModeSettings } from "./ModeSettings";
import { ModelSettings } from "./ModelSettings";
import { NotificationSettings } from "./NotificationSettings";
import { ProviderSettings } from "./ProviderSettings";
import { ThemeSettings } from "./ThemeSettings";
import { SandboxSettings } from "../sandbox";
import { CopiesSettings } from "../isolation/CopiesSettings";
import { useReturnFocus } from "../../ui/returnFocus";
import "./settings.css";

/**
 * SettingsView is the settings dialog: approval modes (of the open session,
 * if any, and of new sessions), provider profiles, models and limits, MCP
 * servers, hooks, the open session's sandbox grants, the isolated sessions'
 * copies on disk, notifications, and the theme. Escape or the close button calls onClose.
 */
export function SettingsView(props: { sessionId: string | null; onClose: () => void; onOpenSession?: (id: string) => void }) {
  // Mounted only while open: focus goes back to what opened it (the sidebar's button, the shortcut's place).
  const returnFocus = useReturnFocus(true);
  return (
    <Dialog.Root open onOpenChange={(open) => !open && props.onClose()}>
      <Dialog.Portal>
        <Dialog.Overlay className="settings-overlay" />
        <Dialog.Content className="settings-dialog" onCloseAutoFocus={returnFocus}>
          <header className="settings-header">
            <Dialog.Title>Settings</Dialog.Title>
            <Dialog.Close asChild>
              <button type="button" className="button icon-button" aria-label="Close settings">
                <X aria-hidden size={18} />
              </button>
            </Dialog.Close>
          </header>
          <Dialog.Description className="muted settings-description">
            Changes are saved at once; a mode switch applies from the agent's next decision.
          </Dialog.Description>
          <Tabs.Root className="settings-tabs" defaultValue="modes">
            <Tabs.List className="settings-tablist" aria-label="Settings sections">
              <Tabs.Trigger value="modes">Approval mode</Tabs.Trigger>
              <Tabs.Trigger value="providers">Providers</Tabs.Trigger>
              <Tabs.Trigger value="models">Models and limits</Tabs.Trigger>
              <Tabs.Trigger value="mcp">MCP servers</Tabs.Trigger>
              <Tabs.Trigger value="hooks">Hooks</Tabs.Trigger>
              <Tabs.Trigger value="sandbox">Sandbox</Tabs.Trigger>
              <Tabs.Trigger value="copies">Isolated copies</Tabs.Trigger>
              <Tabs.Trigger value="notifications">Notifications</Tabs.Trigger>
              <Tabs.Trigger value="theme">Theme</Tabs.Trigger>
            </Tabs.List>
            <Tabs.Content value="modes" className="settings-panel">
              <ModeSettings sessionId={props.sessionId} />
            </Tabs.Content>
            <Tabs.Content value="providers" className="settings-panel">
              <ProviderSettings />
            </Tabs.Content>
            <Tabs.Content value="models" className="settings-panel">
              <ModelSettings sessionId={props.sessionId} />
            </Tabs.Content>
            <Tabs.Content value="mcp" className="settings-panel">
              <MCPSettings sessionId={props.sessionId} />
            </Tabs.Content>
            <Tabs.Content value="hooks" className="settings-panel">
              <HookSettings sessionId={props.sessionId} />
            </Tabs.Content>
            <Tabs.Content value="sandbox" className="settings-panel">
              <SandboxSettings sessionId={props.sessionId} />
            </Tabs.Content>
            <Tabs.Content value="copies" className="settings-panel">
              <CopiesSettings {...(props.onOpenSession ? { onOpenSession: props.onOpenSession } : {})} />
            </Tabs.Content>
            <Tabs.Content value="notifications" className="settings-panel">
              <NotificationSettings />
            </Tabs.Content>
            <Tabs.Content value="theme" className="settings-panel">
              <ThemeSettings />
            </Tabs.Content>
          </Tabs.Root>
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}
