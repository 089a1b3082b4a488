import { Page } from '../components/page.tsx';
import { Link } from '../router.tsx';

export function NotFoundPage() {
  return (
    <Page title="Page not found">
      <p>
        There is nothing at this address. Go to the <Link to="/">playground</Link> or the <Link to="/voices">voice library</Link>.
      </p>
    </Page>
  );
}
