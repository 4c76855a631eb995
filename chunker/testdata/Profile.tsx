import React, { useEffect, useState } from "react";

interface ProfileProps {
  userId: string;
  onClose?: () => void;
}

type Status = "idle" | "loading" | "error";

// useUser fetches a user and tracks loading state.
function useUser(userId: string) {
  const [user, setUser] = useState<{ name: string } | null>(null);
  const [status, setStatus] = useState<Status>("idle");
  useEffect(() => {
    setStatus("loading");
    fetch(`/api/users/${userId}`)
      .then((r) => r.json())
      .then((u) => {
        setUser(u);
        setStatus("idle");
      })
      .catch(() => setStatus("error"));
  }, [userId]);
  return { user, status };
}

/** Profile shows a user's card. */
export const Profile: React.FC<ProfileProps> = ({ userId, onClose }) => {
  const { user, status } = useUser(userId);
  if (status === "error") {
    return <p className="error">Could not load profile.</p>;
  }
  return (
    <div className="profile">
      <h2>{user ? user.name : "Loading…"}</h2>
      {onClose && <button onClick={onClose}>Close</button>}
    </div>
  );
};

export class ErrorBoundary extends React.Component<{ children: React.ReactNode }, { failed: boolean }> {
  state = { failed: false };

  static getDerivedStateFromError() {
    return { failed: true };
  }

  render() {
    return this.state.failed ? <p>Something broke.</p> : this.props.children;
  }
}

export default Profile;
